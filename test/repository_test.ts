/**
 * The repository stands alone: no code, test or script reads files outside it (a plain clone has nothing beside
 * it), and every relative link in the READMEs resolves to a file in the repository. `.ci/run` also runs the whole
 * suite from a clone in an empty folder.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

const tracked = async (): Promise<Array<string>> => {
  const out = await new Deno.Command("git", { args: ["ls-files"], cwd: root, stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((f) => f !== "");
};

Deno.test("no source file reaches outside the repository", async () => {
  const sources = (await tracked()).filter((f) =>
    /\.(ts|json|sh)$|^\.ci\//.test(f) && !f.startsWith("schemas/reference/")
  );
  const offenders: Array<string> = [];
  for (const file of sources) {
    if (file === "package-lock.json" || file === "test/repository_test.ts") continue;
    const text = await Deno.readTextFile(`${root}/${file}`);
    // a path that climbs out of the repository root from the file's own folder
    const depth = file.split("/").length - 1;
    const escape = new RegExp(`["'\`(](\\.\\./){${depth + 1},}`);
    if (escape.test(text) || text.includes(["..", "shared", ""].join("/"))) offenders.push(file);
  }
  assert.deepEqual(offenders, [], "these files read outside the repository");
});

Deno.test("every relative link in the READMEs resolves inside the repository", async () => {
  const readmes = (await tracked()).filter((f) =>
    f.endsWith("README.md") && !f.startsWith("schemas/reference/")
  );
  assert.ok(readmes.length > 1, "the READMEs are found");
  const missing: Array<string> = [];
  for (const readme of readmes) {
    const text = await Deno.readTextFile(`${root}/${readme}`);
    const folder = dirname(readme);
    // markdown links are relative to the README's folder; file names in backticks to the repository root
    const links = [...text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]!)
      .filter((l) => !/^[a-z]+:/.test(l)).map((l) => join(folder, l));
    const paths = [...text.matchAll(/`((?:src|layers|schemas|scripts|test)\/[\w./-]+\.(?:ts|sql|json|md))`/g)]
      .map((m) => m[1]!);
    for (const l of [...links, ...paths]) if (!existsSync(`${root}/${l}`)) missing.push(`${readme}: ${l}`);
  }
  assert.deepEqual([...new Set(missing)], [], "the READMEs name files that do not exist");
});
