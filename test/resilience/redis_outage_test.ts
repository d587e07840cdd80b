/**
 * Redis stopped and started under a running service (issue 14: with Redis down every limit, submissions too, was
 * off, and a warning was written per request). Degraded mode limits per instance in memory, warns once a minute,
 * and the shared budgets are used again once Redis answers. A private redis-server, never the shared one.
 */
import assert from "node:assert/strict";
import { Effect } from "effect";
import { Redis } from "ioredis";
import {
  makeMemoryRateLimiter,
  makeRedisRateLimiter,
  makeResilientRateLimiter,
} from "@layers/rate_limiter.ts";
import type { Limits } from "@layers/config.ts";
import { createKey, createTestEnvironment } from "../support/environment.ts";
import { createPrivateRedis, redisAvailable, sleep, timedGet } from "../support/private_servers.ts";
import { startService } from "../support/service.ts";
import { assertHealthKeptUp } from "../support/health_latency.ts";

if (!redisAvailable) console.log("redis_outage_test: skipped, no redis-server binary for a private Redis");

/** `n` concurrent GETs of /v1/key; their statuses. */
const burst = (base: string, key: string, n: number) =>
  Promise.all(Array.from({ length: n }, async () => {
    const r = await fetch(`${base}/v1/key`, { headers: { apikey: key } });
    await r.body?.cancel();
    return r.status;
  }));

Deno.test({
  name: "Redis down: limits still hold per instance, one warning, /health fast; shared again when it returns",
  ignore: !redisAvailable,
  sanitizeResources: false,
  fn: async () => {
    const redis = createPrivateRedis();
    await redis.start();
    const environment = await createTestEnvironment("redis_outage");
    const env = { ...environment.env, REDIS_URL: redis.url, RATE_LIMIT_FREE: "3" };
    const service = await startService(env);
    try {
      const { key } = await createKey(env, "--tier", "free", "--name", "redis outage");
      const shared = await burst(service.base, key, 20);
      assert.ok(shared.includes(429), `limited with Redis up: ${shared}`);

      await redis.stop();
      const statuses: Array<number> = [];
      const healthMs: Array<number> = [];
      for (let i = 0; i < 5; i++) {
        const during = await burst(service.base, key, 20);
        statuses.push(...during);
        // one wall-clock second holds at most 3 (the window may straddle two seconds within a burst)
        assert.ok(during.filter((s) => s === 200).length <= 6, `limited with Redis down: ${during}`);
        assert.ok(during.includes(429), `limited with Redis down: ${during}`);
        for (let probe = 0; probe < 4; probe++) {
          const health = await timedGet(`${service.base}/health`);
          assert.equal(health.status, 200);
          healthMs.push(health.ms);
          assert.equal(health.body.dependencies.redis.state, "down");
        }
        await sleep(300);
      }
      assert.ok(statuses.every((s) => s === 200 || s === 429), `no 5xx: ${statuses}`);
      assertHealthKeptUp(healthMs, "while Redis is down");
      assert.equal(
        (await timedGet(`${service.base}/ready`)).status,
        200,
        "Redis does not take it out of rotation",
      );
      const warnings = service.lines.filter((l) => l.includes("limiting per instance in memory"));
      assert.equal(warnings.length, 1, "one warning for the outage, not one per request");

      await redis.start();
      const redisBackAt = performance.now();
      let back = false;
      for (let i = 0; i < 50 && !back; i++) {
        await burst(service.base, key, 1);
        back = (await timedGet(`${service.base}/health`)).body.dependencies.redis.state === "ok";
        if (!back) await sleep(100);
      }
      assert.ok(back, "Redis is used again");
      console.log(
        `limits shared in Redis again ${Math.round(performance.now() - redisBackAt)} ms after it came back`,
      );
      assert.ok(service.lines.some((l) => l.includes("limits are shared again")));
      // the counters are Redis' again
      const client = new Redis(redis.url);
      const keys = await client.keys("cds:*:rl:*");
      client.disconnect();
      assert.ok(keys.length > 0, "spends are counted in Redis again");
      assert.ok((await burst(service.base, key, 20)).includes(429));
    } finally {
      await service.stop();
      await redis.stop();
      await environment.close();
    }
  },
});

Deno.test({
  name: "degraded limiter: submissions are never unlimited while Redis is unreachable",
  ignore: !redisAvailable,
  sanitizeResources: false,
  fn: async () => {
    const redis = createPrivateRedis(); // never started: nothing answers on its port
    const client = new Redis(redis.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
    });
    client.on("error", () => {});
    const limits: Limits = {
      ratePerSecond: { FREE: 0, PAID: 0 },
      graphqlPerSecond: { FREE: 0, PAID: 0 },
      dailyRequests: { FREE: 0, PAID: 0 },
      submissionsPerHour: { FREE: 2, PAID: 0 },
    };
    try {
      const limiter = makeResilientRateLimiter(
        makeRedisRateLimiter(client, limits),
        makeMemoryRateLimiter(limits),
      );
      const decisions = [];
      for (let i = 0; i < 4; i++) {
        decisions.push(await Effect.runPromise(limiter.consume("7", "FREE", "submission")));
      }
      assert.deepEqual(decisions.map((d) => d.allowed), [true, true, false, false]);
      assert.equal(decisions[2]!.exceeded, "submissions");
    } finally {
      client.disconnect();
    }
  },
});
