/** Logging is one JSON object per line and never prints a secret, whoever logged it. */
import assert from "node:assert/strict";
import { Effect, Logger } from "effect";
import { makeJsonLogger, scrub } from "@layers/logger.ts";

Deno.test("scrub hides API keys, URL passwords and secret-named fields", () => {
  const key = "cds_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6";
  assert.equal(scrub(`request with ${key} failed`), "request with cds_*** failed");
  assert.equal(scrub("postgres://dbsync:hunter2@db:5432/x"), "postgres://dbsync:***@db:5432/x");
  assert.deepEqual(scrub({ apikey: "abc", nested: { password: "pw", authorization: "Bearer x", ok: 1 } }), {
    apikey: "***",
    nested: { password: "***", authorization: "***", ok: 1 },
  });
  assert.deepEqual(scrub(["redis://:pw@cache:6379"]), ["redis://:***@cache:6379"]);
});

Deno.test("the JSON logger writes one scrubbed object per line with annotations", async () => {
  const lines: Array<string> = [];
  const logger = makeJsonLogger((l) => lines.push(l));
  const key = "cds_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4";
  await Effect.runPromise(
    Effect.logInfo(`key ${key} used`).pipe(
      Effect.annotateLogs({ network: "preprod", databaseUrl: "postgres://u:pw@h/db" }),
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
    ),
  );
  assert.equal(lines.length, 1);
  const entry = JSON.parse(lines[0]!);
  assert.equal(entry.level, "info");
  assert.equal(entry.message, "key cds_*** used");
  assert.equal(entry.network, "preprod");
  assert.equal(entry.databaseUrl, "postgres://u:***@h/db");
  assert.ok(!lines[0]!.includes(key));
  assert.match(entry.time, /^\d{4}-\d\d-\d\dT/);
});
