/**
 * The service's programs are `Effect.fnUntraced`, never the traced `Effect.fn`: a traced function captures a
 * stack trace and opens a span on every call, and nothing here reads spans (the runtime runs with its tracer off,
 * src/main.ts). On a Blockfrost block answered from the per-tip cache that was 30% of the service's CPU a request
 * (233-240 -> 158-161 us, wrk 8 connections on scale_360), and on fresh blocks 946-990 -> 657-659 us.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const traced = new RegExp(["Effect", "\\.fn\\s*[(<]"].join(""));

const sources = async function* (dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${root}/${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sources(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
};

Deno.test("no traced Effect function in the service's code", async () => {
  const offenders: Array<string> = [];
  for (const dir of ["src", "layers", "schemas"]) {
    for await (const file of sources(dir)) {
      if (traced.test(await Deno.readTextFile(`${root}/${file}`))) offenders.push(file);
    }
  }
  assert.deepEqual(offenders, [], "use Effect.fnUntraced in these files");
});
