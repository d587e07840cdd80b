/**
 * The Blockfrost dialect's chain endpoints against Blockfrost's published schema, its envelope for unknown paths,
 * wrong methods and refused keys, and the key in each of its places (`project_id`, our own `apikey` header, the
 * path).
 */
import assert from "node:assert/strict";
import { assertBlockfrostShape, startBlockfrostFixture } from "../support/blockfrost.ts";

Deno.test({
  name: "blockfrost: chain endpoints, envelope and key placement",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startBlockfrostFixture("bf_chain");
    try {
      await t.step("root, health and clock on both networks", async () => {
        for (const network of ["mainnet", "preprod"] as const) {
          const root = await f.bf("/", network);
          assertBlockfrostShape("GET", "/", root);
          const health = await f.bf("/health", network);
          assertBlockfrostShape("GET", "/health", health);
          assert.equal(health.body.is_healthy, true);
          const before = Date.now();
          const clock = await f.bf("/health/clock", network);
          assertBlockfrostShape("GET", "/health/clock", clock);
          assert.ok(Math.abs(clock.body.server_time - before) < 60_000);
        }
      });

      await t.step("the key in our own apikey header, as on our other routes", async () => {
        for (const base of ["/api/v0", "/api/preprod/v0"]) {
          const r = await fetch(`${f.service.base}${base}/health`, { headers: { apikey: f.key } });
          assert.equal(r.status, 200, base);
          assertBlockfrostShape("GET", "/health", { status: r.status, body: await r.json() });
          const wrong = await fetch(`${f.service.base}${base}/health`, {
            headers: { apikey: "cds_thisKeyDoesNotExist000000000000" },
          });
          assert.equal(wrong.status, 403, base);
          const refusal = await wrong.json();
          assertBlockfrostShape("GET", "/health", { status: wrong.status, body: refusal });
          // read and refused, not missed: a missing key is refused with another message
          assert.equal(refusal.message, "Invalid API key");
        }
      });

      await t.step("the key in the path, for clients that take only a base URL", async () => {
        const r = await fetch(`${f.service.base}/key/${f.key}/api/preprod/v0/health`);
        assert.equal(r.status, 200);
        assert.deepEqual(await r.json(), { is_healthy: true });
        // only the dialect's routes take a key there
        const other = await fetch(`${f.service.base}/key/${f.key}/v2/explorer/mainnet/stats`);
        assert.equal(other.status, 404);
        assert.ok(!(await other.text()).includes(f.key), "a key in the path is never echoed");
      });

      await t.step("refusals, unknown paths and methods in Blockfrost's envelope", async () => {
        const none = await fetch(`${f.service.base}/api/v0/health`);
        assert.equal(none.status, 403);
        assertBlockfrostShape("GET", "/health", { status: 403, body: await none.json() });
        const wrong = await f.bf("/health", "mainnet", "cds_thisKeyDoesNotExist000000000000");
        assert.equal(wrong.status, 403);
        assert.equal(wrong.body.status_code, 403);
        const unknown = await f.bf("/no/such/thing");
        assert.equal(unknown.status, 404);
        assertBlockfrostShape("GET", "/blocks/latest", unknown);
        const post = await fetch(`${f.service.base}/api/v0/health`, {
          method: "POST",
          headers: { project_id: f.key },
        });
        assert.equal(post.status, 405);
        assert.deepEqual(Object.keys(await post.json()), ["status_code", "error", "message"]);
        const repeated = await f.bf("/health?x=1&x=2");
        assert.equal(repeated.status, 400);
        assertBlockfrostShape("GET", "/health", repeated);
      });

      await t.step("the dialect's own OpenAPI document names both base URLs", async () => {
        const doc = (await f.get("/blockfrost/openapi.json")).body;
        assert.deepEqual(doc.servers.map((s: { url: string }) => s.url), ["/api/v0", "/api/preprod/v0"]);
        assert.ok(doc.paths["/health/clock"].get);
      });
    } finally {
      await f.close();
    }
  },
});
