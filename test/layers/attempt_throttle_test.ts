/**
 * The attempt throttle: a window starts at the first attempt and allows `limit` of them; past it the subject
 * waits until the window ends; a released attempt is given back; clearing forgets. Reservations are atomic: any
 * number of them at once gets exactly `limit` through, in memory and in Redis. With REDIS_URL, two instances
 * share one count (and a Redis that does not answer falls back to the instance's memory instead of failing the
 * log-in).
 */
import assert from "node:assert/strict";
import { Effect } from "effect";
import { Redis } from "ioredis";
import {
  type AttemptThrottleShape,
  defaultRules,
  makeMemoryThrottle,
  makeRedisThrottle,
} from "@layers/attempt_throttle.ts";
import { redisUrl } from "../support/environment.ts";

const run = Effect.runPromise;

const exhaust = async (throttle: AttemptThrottleShape, subject: string, times: number) => {
  for (let i = 0; i < times; i++) assert.equal(await run(throttle.reserve("login-account", subject)), 0);
};

/** 300 reservations at once: how many went through. */
const burst = async (throttle: AttemptThrottleShape, subject: string) => {
  const waits = await Promise.all(
    Array.from({ length: 300 }, () => run(throttle.reserve("login-account", subject))),
  );
  return waits.filter((w) => w === 0).length;
};

Deno.test("memory throttle: limit per window, then a wait until the window ends; release gives back, clear forgets", async () => {
  let now = 1_000_000;
  const throttle = makeMemoryThrottle(defaultRules, () => now);
  await exhaust(throttle, "a@example.com", 10);
  assert.equal(await run(throttle.reserve("login-account", "a@example.com")), 15 * 60_000);
  assert.equal(await run(throttle.reserve("login-account", "b@example.com")), 0, "per subject");
  assert.equal(await run(throttle.reserve("login-address", "a@example.com")), 0, "per counter");
  now += 5 * 60_000;
  assert.equal(await run(throttle.reserve("login-account", "a@example.com")), 10 * 60_000);
  await run(throttle.release("login-account", "a@example.com"));
  assert.equal(await run(throttle.reserve("login-account", "a@example.com")), 0, "a released attempt");
  assert.equal(await run(throttle.reserve("login-account", "a@example.com")), 10 * 60_000);
  now += 10 * 60_000;
  assert.equal(await run(throttle.reserve("login-account", "a@example.com")), 0, "the window ended");
  await exhaust(throttle, "c@example.com", 10);
  await run(throttle.clear("login-account", "c@example.com"));
  assert.equal(await run(throttle.reserve("login-account", "c@example.com")), 0);
});

Deno.test("memory throttle: 300 reservations at once get exactly the limit through", async () => {
  assert.equal(await burst(makeMemoryThrottle(), "burst@example.com"), defaultRules["login-account"].limit);
});

Deno.test({
  name:
    "Redis throttle: atomic under a burst; instances share the count; a Redis that does not answer falls back to memory",
  ignore: redisUrl === undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const redis = new Redis(redisUrl!);
    const prefix = `cds:test-${crypto.randomUUID()}:attempts`;
    try {
      const one = makeRedisThrottle(redis, prefix, makeMemoryThrottle());
      const two = makeRedisThrottle(redis, prefix, makeMemoryThrottle());
      assert.equal(await burst(one, "burst@example.com"), defaultRules["login-account"].limit);
      await exhaust(one, "shared@example.com", 5);
      await exhaust(two, "shared@example.com", 5);
      const wait = await run(one.reserve("login-account", "shared@example.com"));
      assert.ok(wait > 14 * 60_000 && wait <= 15 * 60_000, String(wait));
      assert.ok(await run(two.reserve("login-account", "shared@example.com")) > 0);
      await run(one.release("login-account", "shared@example.com"));
      assert.equal(await run(two.reserve("login-account", "shared@example.com")), 0, "given back");
      await run(two.clear("login-account", "shared@example.com"));
      await exhaust(one, "shared@example.com", 10);

      const gone = new Redis("redis://127.0.0.1:1", {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
      });
      gone.on("error", () => {});
      const fallback = makeRedisThrottle(gone, prefix, makeMemoryThrottle());
      await exhaust(fallback, "local@example.com", 10);
      assert.ok(await run(fallback.reserve("login-account", "local@example.com")) > 0);
      gone.disconnect();
    } finally {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  },
});
