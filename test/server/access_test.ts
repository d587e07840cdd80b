/**
 * Access control over real HTTP against the running service: every auth answer of the spec, every way to send a
 * key, changes made with the keys CLI honoured within a second, the rate limit and daily quota answers with their
 * headers, and usage that survives a restart. With REDIS_URL, two instances share one budget.
 */
import assert from "node:assert/strict";
import { startService } from "../support/service.ts";
import {
  createKey,
  createTestEnvironment,
  keysCli,
  redisUrl,
  type TestEnvironment,
} from "../support/environment.ts";
import { testDatabaseUrl } from "../support/databases.ts";
import { within } from "../support/within.ts";

const limits = { RATE_LIMIT_FREE: "5", DAILY_QUOTA_FREE: "12", RATE_LIMIT_PAID: "50" };

const call = async (
  base: string,
  init: { key?: string; header?: "apikey" | "bearer" | "query" | "queryCamel" },
) => {
  const url = new URL(`${base}/v1/key`);
  const headers: Record<string, string> = {};
  if (init.key !== undefined) {
    if (init.header === "bearer") headers.authorization = `Bearer ${init.key}`;
    else if (init.header === "query") url.searchParams.set("apikey", init.key);
    else if (init.header === "queryCamel") url.searchParams.set("apiKey", init.key);
    else headers.apikey = init.key;
  }
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, body: await response.json() };
};

Deno.test({
  name: "access control over HTTP",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const environment: TestEnvironment = await createTestEnvironment("access");
    const env = { ...environment.env, ...limits };
    let service = await startService(env);
    try {
      const free = await createKey(env, "--tier", "free", "--name", "free key");
      const paid = await createKey(env, "--tier", "paid", "--name", "paid key", "--account", "acme");

      await t.step("no key: 401 API key required, in the spec's envelope", async () => {
        const r = await call(service.base, {});
        assert.equal(r.status, 401);
        assert.deepEqual(r.body, { error: { code: 401, message: "API key required" } });
      });

      await t.step("a wrong key: 401 Invalid API key", async () => {
        for (const key of ["nope", "cds_" + "x".repeat(32), free.key.slice(0, -1) + "!", ""]) {
          const r = await call(service.base, { key });
          assert.equal(r.status, 401, key);
          assert.deepEqual(r.body, {
            error: { code: 401, message: key === "" ? "API key required" : "Invalid API key" },
          });
        }
      });

      await t.step(
        "the key is accepted as apikey header, Bearer token, apikey and apiKey query parameter",
        async () => {
          for (const header of ["apikey", "bearer", "query", "queryCamel"] as const) {
            const r = await call(service.base, { key: paid.key, header });
            assert.equal(r.status, 200, header);
            assert.equal(r.body.name, "paid key");
            assert.equal(r.body.tier, "PAID");
            assert.equal(r.body.hint, `cds_…${paid.key.slice(-4)}`);
            assert.ok(!JSON.stringify(r.body).includes(paid.key), "the secret is never echoed");
            assert.equal(r.headers.get("x-ratelimit-limit"), "50");
            assert.ok(Number(r.headers.get("x-ratelimit-remaining")) < 50);
            assert.ok(Number(r.headers.get("x-ratelimit-reset")) >= 1);
          }
        },
      );

      await t.step(
        "every key source works whatever Authorization rides along; apikey header > query > Bearer",
        async () => {
          // keys of their own: the paid key's usage is counted in a later step
          const first = await createKey(env, "--tier", "paid", "--name", "first key");
          const other = await createKey(env, "--tier", "paid", "--name", "other key");
          const nameOf = async (path: string, headers: Record<string, string>) => {
            const r = await fetch(`${service.base}${path}`, { headers });
            const body = await r.json();
            assert.equal(r.status, 200, `${path} ${JSON.stringify(headers)}: ${JSON.stringify(body)}`);
            return body.name;
          };
          const basic = `Basic ${btoa("user:password")}`;
          // another Authorization scheme (a proxy's Basic, a gateway's Bearer that is no key) is not ours
          assert.equal(await nameOf(`/v1/key?apikey=${first.key}`, { authorization: basic }), "first key");
          assert.equal(await nameOf(`/v1/key?apiKey=${first.key}`, { authorization: basic }), "first key");
          assert.equal(await nameOf("/v1/key", { apikey: first.key, authorization: basic }), "first key");
          assert.equal(
            await nameOf(`/v1/key?apikey=${first.key}`, { authorization: "Bearer gateway-token" }),
            "first key",
          );
          // two keys: the first source in the documented order, not a 400
          const both = { apikey: first.key, authorization: `Bearer ${other.key}` };
          assert.equal(await nameOf(`/v1/key?apikey=${other.key}`, both), "first key");
          assert.equal(
            await nameOf(`/v1/key?apikey=${other.key}`, { authorization: `Bearer ${first.key}` }),
            "other key",
          );
          // a blank apikey header says nothing: the next source is read
          assert.equal(await nameOf(`/v1/key?apikey=${first.key}`, { apikey: " " }), "first key");
          // with no key anywhere, an Authorization of another scheme is still "API key required"
          const none = await fetch(`${service.base}/v1/key`, { headers: { authorization: basic } });
          assert.equal(none.status, 401);
          assert.deepEqual(await none.json(), { error: { code: 401, message: "API key required" } });
        },
      );

      await t.step("deactivate, activate, revoke and rotate with the CLI apply within a second", async () => {
        const k = await createKey(env, "--tier", "paid", "--name", "lifecycle");
        assert.equal((await call(service.base, { key: k.key })).status, 200);
        assert.equal((await keysCli(env, "deactivate", String(k.id))).code, 0);
        const inactive = await within(
          1000,
          async () => (await call(service.base, { key: k.key })).status === 403,
        );
        const r403 = await call(service.base, { key: k.key });
        assert.deepEqual(r403.body, { error: { code: 403, message: "API key is inactive" } });
        {
          const activated = await keysCli(env, "activate", String(k.id));
          assert.equal(activated.code, 0, JSON.stringify(activated));
        }
        await within(1000, async () => (await call(service.base, { key: k.key })).status === 200);
        const rotated = await keysCli(env, "rotate", String(k.id));
        assert.equal(rotated.code, 0);
        const fresh = rotated.stdout[rotated.stdout.length - 1]!;
        await within(1000, async () => (await call(service.base, { key: k.key })).status === 401);
        assert.equal((await call(service.base, { key: fresh })).status, 200);
        assert.equal((await keysCli(env, "revoke", String(k.id))).code, 0);
        const revoked = await within(
          1000,
          async () => (await call(service.base, { key: fresh })).status === 401,
        );
        assert.deepEqual((await call(service.base, { key: fresh })).body, {
          error: { code: 401, message: "Key revoked" },
        });
        console.log(
          `deactivation seen after ${Math.round(inactive)} ms, revocation after ${Math.round(revoked)} ms`,
        );
      });

      await t.step("an expired key: 401 API key expired", async () => {
        const k = await createKey(
          env,
          "--tier",
          "free",
          "--name",
          "old",
          "--expires",
          "2020-01-01T00:00:00Z",
        );
        const r = await call(service.base, { key: k.key });
        assert.deepEqual([r.status, r.body], [401, { error: { code: 401, message: "API key expired" } }]);
      });

      await t.step("past the per-second rate: 429 with the spec's message and headers", async () => {
        const k = await createKey(env, "--tier", "free", "--name", "burst");
        // 20 at once: even if a loaded machine spreads them over a second or two, well over 5 + refills
        const results = await Promise.all(
          Array.from({ length: 20 }, () => call(service.base, { key: k.key })),
        );
        const refused = results.filter((r) =>
          r.status === 429 && r.body.error.message === "Rate limit exceeded. Please slow down."
        );
        assert.ok(refused.length >= 3, `refused ${refused.length} of 20 at 5 per second`);
        const r = refused[0]!;
        assert.deepEqual(r.body, { error: { code: 429, message: "Rate limit exceeded. Please slow down." } });
        assert.equal(r.headers.get("x-ratelimit-limit"), "5");
        assert.equal(r.headers.get("x-ratelimit-remaining"), "0");
        assert.equal(r.headers.get("retry-after"), "1");
        assert.equal(r.headers.get("x-ratelimit-reset"), "1");
      });

      const daily = await createKey(env, "--tier", "free", "--name", "daily");
      await t.step("past the FREE daily quota: 429 until the UTC day ends", async () => {
        const k = daily;
        let last;
        for (let i = 0; i < 13; i++) {
          last = await call(service.base, { key: k.key });
          if (i < 12) assert.equal(last.status, 200, `request ${i + 1}`);
          if (i % 4 === 3) await new Promise((r) => setTimeout(r, 1000));
        }
        assert.equal(last!.status, 429);
        assert.match(last!.body.error.message, /^Daily request limit exceeded for the FREE tier/);
        const retryAfter = Number(last!.headers.get("retry-after"));
        const untilMidnight = 86_400 - (Math.floor(Date.now() / 1000) % 86_400);
        assert.ok(Math.abs(retryAfter - untilMidnight) <= 2, `retry-after ${retryAfter} vs ${untilMidnight}`);
      });

      await t.step("usage survives a restart", async () => {
        const before = await keysCli(env, "usage", String(paid.id));
        assert.equal(await service.stop(), 0);
        service = await startService(env);
        const after = await keysCli(env, "usage", String(paid.id));
        const count = (lines: Array<string>) =>
          lines.filter((l) => /^\s+\d+\s+\d{4}-\d\d-\d\d\s+account\s+\d+$/.test(l))
            .reduce((s, l) => s + Number(l.trim().split(/\s+/).pop()), 0);
        assert.equal(count(after.stdout), 4, after.stdout.join("\n"));
        assert.ok(count(before.stdout) <= 4);
        const stillSpent = await call(service.base, { key: daily.key });
        assert.equal(stillSpent.status, 429, "a restart does not hand out a fresh daily quota");
        assert.match(stillSpent.body.error.message, /^Daily request limit exceeded/);
      });

      await t.step({
        name: "two instances on one Redis share one budget",
        ignore: !redisUrl || !testDatabaseUrl,
        fn: async () => {
          const second = await startService(env);
          try {
            const k = await createKey(env, "--tier", "free", "--name", "shared");
            await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
            const results = [];
            for (let i = 0; i < 8; i++) {
              results.push(await call(i % 2 === 0 ? service.base : second.base, { key: k.key }));
            }
            assert.deepEqual(results.map((r) => r.status), [200, 200, 200, 200, 200, 429, 429, 429]);
          } finally {
            await second.stop();
          }
        },
      });
    } finally {
      await service.stop();
      await environment.close();
    }
  },
});
