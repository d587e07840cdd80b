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

Deno.test("scrub hides keys of any prefix, also after `_` and with a one-character prefix", () => {
  const secret = "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6";
  const cases: Array<[string, string]> = [
    [`apikey_cds_${secret}`, "apikey_cds_***"],
    [`x_${secret}`, "x_***"],
    [`K_${secret} and L_${secret}`, "K_*** and L_***"],
    [`?apikey=abcdefghijkl_${secret}&x=1`, "?apikey=abcdefghijkl_***&x=1"],
    [`{"key":"cds_${secret}"}`, '{"key":"cds_***"}'],
    [`cds_${secret}_tail`, "cds_***_tail"],
  ];
  for (const [input, expected] of cases) assert.equal(scrub(input), expected, input);
  // 31 or 33 characters, or no prefix at all, are not keys
  assert.equal(scrub(`cds_${secret.slice(1)}`), `cds_${secret.slice(1)}`);
  assert.equal(scrub(`cds_${secret}Z`), `cds_${secret}Z`);
  assert.equal(scrub(`_${secret}`), `_${secret}`);
});

Deno.test("scrub is linear: 100 kB adversarial lines take under 50 ms each", () => {
  const lines = {
    schemeRuns: "a.".repeat(50_000),
    emptyPasswords: "a://:".repeat(20_000),
    schemesWithoutAt: "a://b".repeat(20_000),
    longUser: "a://" + "b".repeat(100_000),
    longPassword: "a://b:" + "c:".repeat(50_000),
    underscores: "a_".repeat(50_000),
    nearKeys: ("x_" + "A".repeat(31) + " ").repeat(3_000),
    letters: "a".repeat(100_000),
  };
  scrub("warm up postgres://u:p@h/db cds_" + "A".repeat(32));
  for (const [name, line] of Object.entries(lines)) {
    // the best of three: a shared core can pause any one run; a quadratic pattern is slow every time
    const runs = Array.from({ length: 3 }, () => {
      const started = performance.now();
      scrub(line);
      return performance.now() - started;
    });
    const ms = Math.min(...runs);
    assert.ok(ms < 50, `${name}: ${ms.toFixed(1)} ms`);
  }
  // and the masking still holds inside such a line
  const key = "cds_" + "Z".repeat(32);
  assert.equal(
    String(scrub("a.".repeat(1000) + ` postgres://u:pw@h/db ${key}`)).slice(-30),
    " postgres://u:***@h/db cds_***",
  );
});
