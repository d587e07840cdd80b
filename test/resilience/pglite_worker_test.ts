/**
 * Issue 14, items 1 and 2 on the embedded default: a GraphQL statement that runs for tens of seconds on mainnet's
 * PGlite does not hold up the other network (its database runs in a worker of its own, and so does mainnet's, so
 * the thread serving HTTP stays free); it is cancelled at the GraphQL statement time limit with the documented
 * `statement-timeout` error, and mainnet answers again afterwards. Embedded only: on PostgreSQL
 * (TEST_DATABASE_URL) each network has a pool and the server enforces `statement_timeout` itself.
 */
import assert from "node:assert/strict";
import { createKey, createTestEnvironment } from "../support/environment.ts";
import { testDatabaseUrl } from "../support/databases.ts";
import { startService } from "../support/service.ts";
import { assertHealthKeptUp, percentile } from "../support/health_latency.ts";

/** The GraphQL statement limit the service runs with here (GRAPHQL_TIMEOUT_MS), short so the test is. */
const statementTimeoutMs = 1_500;

/**
 * A query the cost rules accept for a PAID key (100 root fields, index-ordered pages, 100,000 rows) whose
 * offsets still make PGlite walk about 1.5 million index entries: seconds of work, over the 1.5 s limit.
 */
const slowQuery = `{ ${
  Array.from({ length: 100 }, (_, i) =>
    `a${i}: tx_out(order_by: {id: asc}, offset: ${14_000 + i}, limit: 1000) { value address }`).join(" ")
} }`;

Deno.test({
  name:
    "a slow mainnet statement never delays preprod, is cancelled at its limit, and mainnet serves afterwards",
  ignore: testDatabaseUrl !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const environment = await createTestEnvironment("pglite-worker");
    try {
      const service = await startService({
        ...environment.env,
        GRAPHQL_TIMEOUT_MS: String(statementTimeoutMs),
      });
      try {
        const { key } = await createKey(environment.env, "--tier", "paid", "--name", "pglite worker");
        const headers = { apikey: key, "content-type": "application/json" };
        const graphql = (path: string, query: string) =>
          fetch(`${service.base}${path}`, { method: "POST", headers, body: JSON.stringify({ query }) });
        // a REST answer from preprod's database (an unknown hash each time: nothing cached)
        const preprodRest = async (i: number) => {
          const hash = i.toString(16).padStart(64, "0");
          const started = performance.now();
          const r = await fetch(`${service.base}/api/public/tx-status?txHash=${hash}&network=preprod`, {
            headers,
          });
          await r.body?.cancel();
          assert.ok(r.status < 500, `preprod answered ${r.status}`);
          return performance.now() - started;
        };
        for (let i = 0; i < 5; i++) await preprodRest(1_000 + i); // warm

        const started = performance.now();
        const slow = graphql("/v1/graphql", slowQuery).then(async (r) => ({
          status: r.status,
          body: await r.json(),
          ms: performance.now() - started,
        }));
        let slowDone = false;
        slow.finally(() => (slowDone = true));
        await new Promise((resolve) => setTimeout(resolve, 100));
        const samples: Array<number> = [];
        const healthMs: Array<number> = [];
        for (let i = 0; i < 50 && !slowDone; i++) {
          samples.push(await preprodRest(i));
          // /health runs no query (the polled tip): it answers at once while mainnet's session is busy
          const healthStarted = performance.now();
          const health = await fetch(`${service.base}/health`);
          await health.body?.cancel();
          assert.equal(health.status, 200);
          if (!slowDone) healthMs.push(performance.now() - healthStarted);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const probedFor = performance.now() - started;
        const answer = await slow;
        console.log(
          `preprod REST during the slow mainnet statement: p95 ${
            percentile(samples, 0.95).toFixed(1)
          } ms, max ${
            Math.max(...samples).toFixed(1)
          } ms over ${samples.length} probes; the slow one answered after ${answer.ms.toFixed(0)} ms`,
        );
        assert.ok(samples.length >= 10, `only ${samples.length} probes while the slow statement ran`);
        assertHealthKeptUp(healthMs, "while the slow statement runs", 5);
        // p95, not the maximum: on a shared 2-core machine (CI runs three test files at once) one probe in 50 can
        // wait for a core; a statement holding the thread would delay every probe after it instead
        // held up behind mainnet's statement, preprod would wait for it (1.5 s and more); unheld it answers in about
        // 10-20 ms on a quiet machine, 147 ms at p95 on a loaded 2-core one: half the statement limit tells them apart
        assert.ok(
          percentile(samples, 0.95) < statementTimeoutMs / 2,
          `preprod p95 ${percentile(samples, 0.95).toFixed(1)} ms`,
        );
        assert.ok(Math.max(...samples) < 1_000, `preprod max ${Math.max(...samples).toFixed(1)} ms`);
        assert.equal(answer.status, 200);
        assert.equal(
          answer.body.errors?.[0]?.extensions?.code,
          "statement-timeout",
          JSON.stringify(answer.body).slice(0, 300),
        );
        assert.ok(probedFor <= answer.ms + 100, "the probes ran while the slow statement did");
        assert.ok(
          answer.ms >= statementTimeoutMs - 500 && answer.ms < statementTimeoutMs + 5_000,
          `cancelled after ${answer.ms.toFixed(0)} ms`,
        );

        // mainnet serves again (on PGlite: from the reopened database)
        const after = await graphql("/v1/graphql", "{ block(order_by: {id: desc}, limit: 1) { block_no } }");
        assert.equal(after.status, 200);
        const body = await after.json();
        assert.ok(typeof body.data?.block?.[0]?.block_no === "number", JSON.stringify(body));
        assert.ok(
          service.lines.some((l) => /mainnet: embedded database restarted: a statement ran over/.test(l)),
          "the worker was replaced",
        );
      } finally {
        assert.equal(await service.stop(), 0);
      }
    } finally {
      await environment.close();
    }
  },
});
