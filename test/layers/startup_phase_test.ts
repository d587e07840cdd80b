/** Start-up phases: a line when each starts and ends (with `ms`), and progress lines while a long one runs. */
import assert from "node:assert/strict";
import { Effect, Logger, Ref } from "effect";
import { makeJsonLogger } from "@layers/logger.ts";
import { phase } from "@layers/startup_phase.ts";

const capture = () => {
  const lines: Array<Record<string, unknown>> = [];
  const layer = Logger.replace(Logger.defaultLogger, makeJsonLogger((l) => lines.push(JSON.parse(l))));
  return { lines, layer };
};

Deno.test("a long phase logs its start, its progress every few seconds, and its end with ms", async () => {
  const { lines, layer } = capture();
  const result = await Effect.runPromise(
    phase("seeding", (progress) =>
      Effect.gen(function* () {
        yield* Ref.set(progress, "100 blocks");
        yield* Effect.sleep("3500 millis");
        return 42;
      }), { network: "preprod" }).pipe(Effect.provide(layer)),
  );
  assert.equal(result, 42);
  assert.deepEqual(lines.map((l) => l.message), [
    "seeding: started",
    "seeding: running, 100 blocks",
    "seeding: done",
  ]);
  for (const line of lines) assert.deepEqual([line.phase, line.network], ["seeding", "preprod"]);
  assert.equal(lines[1]!.progress, "100 blocks");
  assert.ok((lines[1]!.ms as number) >= 2900, JSON.stringify(lines[1]));
  assert.ok((lines[2]!.ms as number) >= 3400, JSON.stringify(lines[2]));
});

Deno.test("a failing phase says so with its time, and its error goes on", async () => {
  const { lines, layer } = capture();
  const exit = await Effect.runPromiseExit(
    phase("open", () => Effect.fail("no such directory")).pipe(Effect.provide(layer)),
  );
  assert.equal(exit._tag, "Failure");
  assert.deepEqual(lines.map((l) => [l.level, l.message]), [["info", "open: started"], [
    "warn",
    "open: failed",
  ]]);
  assert.equal(typeof lines[1]!.ms, "number");
});
