/**
 * `npm run compile` (deno compile) cannot run here: it downloads Deno's runtime. What the binary needs is checked
 * instead: package.json's and deno.json's compile commands agree, and every file the service reaches through
 * `new URL(…, import.meta.url)` (workers, SQL, HTML and JS assets) is one compile puts into the binary (an
 * included path or node_modules). test/binary/file_reads_test.ts runs the service limited to those files.
 */
import assert from "node:assert/strict";
import { relative, resolve } from "node:path";
import { compileCommand, packageCompile, root } from "./binary/compile.ts";

Deno.test("package.json's and deno.json's compile commands are the same command", async () => {
  const fromPackage = await packageCompile();
  const denoJson = JSON.parse(await Deno.readTextFile(`${root}/deno.json`));
  assert.deepEqual(compileCommand(denoJson.tasks.compile).args, fromPackage.args);
  assert.equal(
    fromPackage.entry,
    JSON.parse(await Deno.readTextFile(`${root}/package.json`)).scripts.start
      .split(" ").at(-1),
  );
});

/** Files of the service's source that find a file some other way (not scanned below): must be none. */
const otherWays: Array<string> = [];

/** Every `new URL("path…", import.meta.url)` in the service's source (a template's fixed prefix for `${…}`). */
const urlTargets = async (): Promise<Array<{ file: string; target: string }>> => {
  const out: Array<{ file: string; target: string }> = [];
  otherWays.length = 0;
  for (const dir of ["src", "layers", "schemas"]) {
    const walk = async (path: string) => {
      for await (const entry of Deno.readDir(path)) {
        const full = `${path}/${entry.name}`;
        if (entry.isDirectory) await walk(full);
        else if (/\.ts$/.test(entry.name) && !full.includes("/schemas/reference/")) {
          const text = await Deno.readTextFile(full);
          if (/import\.meta\.(resolve|dirname|filename)|Deno\.cwd\(/.test(text)) {
            otherWays.push(relative(root, full));
          }
          for (const m of text.matchAll(/new URL\(\s*["'`]([^"'`$]*)[^)]*import\.meta\.url\s*\)/g)) {
            out.push({ file: relative(root, full), target: relative(root, resolve(full, "..", m[1]!)) });
          }
        }
      }
    };
    await walk(`${root}/${dir}`);
  }
  return out;
};

Deno.test("every file the service reaches by import.meta.url goes into the binary", async () => {
  const { includes } = await packageCompile();
  const targets = await urlTargets();
  assert.ok(targets.length >= 5, `the scan finds the known ones: ${JSON.stringify(targets)}`);
  const outside = targets.filter(({ target }) =>
    !(target === "node_modules" || target.startsWith("node_modules/")) &&
    !includes.some((inc) => target === inc || target.startsWith(`${inc.replace(/\/$/, "")}/`))
  );
  assert.deepEqual(outside, [], "not under a --include of the compile command (nor node_modules)");
  assert.deepEqual(
    otherWays,
    [],
    "import.meta.resolve/dirname/filename or Deno.cwd(): add them to this scan",
  );
});
