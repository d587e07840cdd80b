/**
 * Both limiter implementations enforce the same budgets: per-second rate, GraphQL rate, UTC-day quota and the
 * sliding hour of submissions. Time is driven with TestClock. With REDIS_URL, two Redis-backed limiters (as two
 * service instances would have) share one budget.
 */
import assert from "node:assert/strict";
import { Effect, Layer, TestClock, TestContext } from "effect";
import { Redis } from "ioredis";
import type { Limits } from "@layers/config.ts";
import {
  type LimitDecision,
  makeMemoryRateLimiter,
  makeRedisRateLimiter,
  type RateLimiterShape,
  type Spend,
} from "@layers/rate_limiter.ts";

const redisUrl = Deno.env.get("REDIS_URL") || undefined;
const limits: Limits = {
  ratePerSecond: { FREE: 5, PAID: 20 },
  graphqlPerSecond: { FREE: 2, PAID: 10 },
  dailyRequests: { FREE: 12, PAID: 0 },
  submissionsPerHour: { FREE: 3, PAID: 0 },
};
const start = Date.UTC(2026, 10, 22, 23, 59, 50);

type Step = (f: (l: RateLimiterShape) => Effect.Effect<void, unknown>) => Promise<void>;

/** Runs a scenario against fresh limiters of one kind under a TestClock set to `start`. */
const scenarios = (
  name: string,
  make: () => Promise<{ a: RateLimiterShape; b: RateLimiterShape; close: () => Promise<void> }>,
  ignore = false,
) => {
  const run = async (f: (a: RateLimiterShape, b: RateLimiterShape) => Effect.Effect<void, unknown>) => {
    const { a, b, close } = await make();
    try {
      await Effect.runPromise(
        Effect.gen(function* () {
          yield* TestClock.setTime(start);
          yield* f(a, b);
        }).pipe(Effect.provide(Layer.mergeAll(TestContext.TestContext))),
      );
    } finally {
      await close();
    }
  };
  /** Key 1 is on FREE, key 2 on PAID. */
  const spend = (l: RateLimiterShape, n: number, tier: "FREE" | "PAID", what: Spend) =>
    Effect.forEach(Array.from({ length: n }), () => l.consume(tier === "FREE" ? "1" : "2", tier, what));

  Deno.test({
    name: `${name}: the per-second rate refuses the request past the limit until the next second`,
    ignore,
    fn: () =>
      run((l) =>
        Effect.gen(function* () {
          const first = yield* spend(l, 5, "FREE", "request");
          assert.ok(first.every((d) => d.allowed));
          assert.deepEqual(first.map((d) => d.remaining), [4, 3, 2, 1, 0]);
          const over = yield* l.consume("1", "FREE", "request");
          assert.equal(over.allowed, false);
          assert.equal(over.exceeded, "rate");
          assert.equal(over.limit, 5);
          assert.ok(over.resetMs > 0 && over.resetMs <= 1000);
          yield* TestClock.adjust("1 second");
          assert.equal((yield* l.consume("1", "FREE", "request")).allowed, true);
          const paid = yield* spend(l, 20, "PAID", "request");
          assert.ok(paid.every((d: LimitDecision) => d.allowed), "another key has its own budget");
        })
      ),
  });

  Deno.test({
    name: `${name}: never more than the rate in any one second, even across a second boundary`,
    ignore,
    fn: () =>
      run((a, b) =>
        Effect.gen(function* () {
          // `start` is on a whole second: a burst 10 ms before the next one, another 10 ms after it
          yield* TestClock.adjust("990 millis");
          assert.ok((yield* spend(a, 5, "FREE", "request")).every((d) => d.allowed));
          yield* TestClock.adjust("20 millis");
          const after = yield* spend(b, 5, "FREE", "request");
          assert.deepEqual(after.map((d) => d.allowed), [false, false, false, false, false]);
          assert.deepEqual([after[0]!.exceeded, after[0]!.remaining], ["rate", 0]);
          assert.equal(after[0]!.resetMs, 980, "a unit comes back when the burst is a second old");
          yield* TestClock.adjust("979 millis");
          assert.equal((yield* a.consume("1", "FREE", "request")).allowed, false, "1 ms early");
          yield* TestClock.adjust("1 millis");
          const back = yield* spend(b, 6, "FREE", "request");
          assert.deepEqual(back.map((d) => d.allowed), [true, true, true, true, true, false]);
          // the same for GraphQL's own rate
          yield* TestClock.adjust("1500 millis");
          assert.ok((yield* spend(a, 2, "FREE", "graphql")).every((d) => d.allowed));
          yield* TestClock.adjust("600 millis");
          assert.equal((yield* b.consume("1", "FREE", "graphql")).exceeded, "graphql");
        })
      ),
  });

  Deno.test({
    name: `${name}: a refused request spends nothing: not the daily quota, not the rate, not submissions`,
    ignore,
    fn: () =>
      run((a, b) =>
        Effect.gen(function* () {
          // a flood of 40 in one instant: 5 served by the rate, 35 refused
          const flood = yield* spend(a, 40, "FREE", "request");
          assert.equal(flood.filter((d) => d.allowed).length, 5);
          assert.equal((yield* b.use("1")).requestsToday, 5, "only the served ones count against the day");
          // the rest of the quota of 12 is still there, a second later
          yield* TestClock.adjust("1 second");
          assert.ok((yield* spend(b, 5, "FREE", "request")).every((d) => d.allowed));
          yield* TestClock.adjust("1 second");
          const last = yield* spend(a, 3, "FREE", "request");
          assert.deepEqual(last.map((d) => [d.allowed, d.exceeded]), [[true, undefined], [true, undefined], [
            false,
            "daily",
          ]]);
          // a submission refused by the rate spends no submission either (another subject, with room today)
          for (let i = 0; i < 5; i++) yield* b.consume("3", "FREE", "request");
          assert.equal((yield* a.consume("3", "FREE", "submission")).exceeded, "rate");
          assert.deepEqual(yield* b.use("3"), { requestsToday: 5, submissionsLastHour: 0 });
        })
      ),
  });

  Deno.test({
    name: `${name}: GraphQL has its own, lower rate`,
    ignore,
    fn: () =>
      run((l) =>
        Effect.gen(function* () {
          const decisions = yield* spend(l, 3, "FREE", "graphql");
          assert.deepEqual(decisions.map((d) => d.allowed), [true, true, false]);
          assert.equal(decisions[2]!.exceeded, "graphql");
          // the figures describe the budget that decided: GraphQL's 2, not the general 5
          assert.deepEqual(decisions.map((d) => [d.budget, d.limit, d.remaining]), [
            ["graphql", 2, 1],
            ["graphql", 2, 0],
            ["graphql", 2, 0],
          ]);
          // the refused GraphQL request spent nothing: two of the general 5 are spent, two left after this one
          const rest = yield* spend(l, 1, "FREE", "request");
          assert.deepEqual([rest[0]!.budget, rest[0]!.limit, rest[0]!.remaining], ["rate", 5, 2]);
        })
      ),
  });

  Deno.test({
    name: `${name}: the daily quota ends at the UTC day, PAID has none`,
    ignore,
    fn: () =>
      run((l) =>
        Effect.gen(function* () {
          for (let i = 0; i < 12; i++) {
            assert.equal((yield* l.consume("1", "FREE", "request")).allowed, true, `request ${i + 1}`);
            yield* TestClock.adjust("300 millis");
          }
          const over = yield* l.consume("1", "FREE", "request");
          assert.equal(over.exceeded, "daily");
          assert.ok(
            over.resetMs > 0 && over.resetMs <= 10_000,
            `resets at midnight UTC, in ${over.resetMs} ms`,
          );
          yield* TestClock.adjust(over.resetMs);
          assert.equal((yield* l.consume("1", "FREE", "request")).allowed, true, "a new UTC day");
          for (let i = 0; i < 3; i++) {
            assert.ok(
              (yield* spend(l, 10, "PAID", "request")).every((d) => d.allowed),
              "PAID has no daily quota",
            );
            yield* TestClock.adjust("1 second");
          }
        })
      ),
  });

  Deno.test({
    name: `${name}: submissions are limited over a sliding hour`,
    ignore,
    fn: () =>
      run((l) =>
        Effect.gen(function* () {
          for (let i = 0; i < 3; i++) {
            assert.equal((yield* l.consume("1", "FREE", "submission")).allowed, true);
            yield* TestClock.adjust("10 minutes");
          }
          const over = yield* l.consume("1", "FREE", "submission");
          assert.equal(over.exceeded, "submissions");
          assert.equal(over.resetMs, 30 * 60_000, "the first submission leaves the window in 30 minutes");
          yield* TestClock.adjust("30 minutes");
          assert.equal((yield* l.consume("1", "FREE", "submission")).allowed, true);
          const paid = yield* spend(l, 10, "PAID", "submission");
          assert.ok(paid.every((d) => d.allowed));
        })
      ),
  });

  Deno.test({
    name: `${name}: a submission known after its request was granted spends the submission budget alone`,
    ignore,
    fn: () =>
      run((l) =>
        Effect.gen(function* () {
          // the request's rate is 5 a second: three granted requests, each then a submission
          for (let i = 0; i < 3; i++) {
            assert.equal((yield* l.consume("1", "FREE", "request")).allowed, true);
            const submission = yield* l.consumeSubmission("1", "FREE");
            assert.deepEqual([submission.allowed, submission.budget, submission.remaining], [
              true,
              "submissions",
              2 - i,
            ]);
          }
          // the submissions spent no rate: two requests are still left in this second
          assert.equal((yield* l.consume("1", "FREE", "request")).remaining, 1);
          const over = yield* l.consumeSubmission("1", "FREE");
          assert.deepEqual([over.allowed, over.exceeded], [false, "submissions"]);
          // one budget with whole submissions
          assert.equal((yield* l.consume("1", "FREE", "submission")).exceeded, "submissions");
          yield* TestClock.adjust("61 minutes");
          assert.equal((yield* l.consumeSubmission("1", "FREE")).allowed, true);
          const paid = yield* Effect.forEach(
            Array.from({ length: 10 }),
            () => l.consumeSubmission("2", "PAID"),
          );
          assert.ok(paid.every((d) => d.allowed));
        })
      ),
  });

  Deno.test({
    name: `${name}: a subject's budget is apart from others'; \`use\` reports what it spent without spending`,
    ignore,
    fn: () =>
      run((l) =>
        Effect.gen(function* () {
          const account = "account:7";
          for (let i = 0; i < 5; i++) {
            assert.equal((yield* l.consume(account, "FREE", "request")).allowed, true);
          }
          assert.equal((yield* l.consume(account, "FREE", "request")).allowed, false);
          // another subject (a key's own budget) is untouched
          assert.equal((yield* l.consume("7", "FREE", "request")).remaining, 4);
          assert.equal((yield* l.consumeSubmission(account, "FREE")).allowed, true);
          // the refused request is not counted
          assert.deepEqual(yield* l.use(account), { requestsToday: 5, submissionsLastHour: 1 });
          assert.deepEqual(yield* l.use(account), { requestsToday: 5, submissionsLastHour: 1 });
          assert.deepEqual(yield* l.use("8"), { requestsToday: 0, submissionsLastHour: 0 });
        })
      ),
  });

  Deno.test({
    name: `${name}: two limiters over the same store share one budget`,
    ignore: ignore || name === "memory",
    fn: () =>
      run((a, b) =>
        Effect.gen(function* () {
          const decisions = [];
          for (let i = 0; i < 6; i++) {
            decisions.push(yield* (i % 2 === 0 ? a : b).consume("1", "FREE", "request"));
          }
          assert.deepEqual(decisions.map((d) => d.allowed), [true, true, true, true, true, false]);
        })
      ),
  });

  Deno.test({
    name:
      `${name}: concurrent spends (batched in one script with Redis) grant exactly the limit, each with its use`,
    ignore,
    fn: () =>
      run((a, b) =>
        Effect.gen(function* () {
          const both = (what: Spend) =>
            Effect.all(
              Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).consume("1", "FREE", what)),
              { concurrency: "unbounded" },
            );
          const flood = yield* both("request");
          const granted = flood.filter((d) => d.allowed);
          assert.equal(granted.length, 5);
          // with Redis each grant carries today's count with itself included: 1 to 5, once each
          if (granted.every((d) => d.use)) {
            assert.deepEqual(granted.map((d) => d.use!.requestsToday).sort(), [1, 2, 3, 4, 5]);
          }
          assert.deepEqual(yield* b.use("1"), { requestsToday: 5, submissionsLastHour: 0 });
          yield* TestClock.adjust("1 second");
          const subs = (yield* both("submission")).filter((d) => d.allowed);
          assert.equal(subs.length, 3, "the hourly submissions, though the rate has room for 5");
          if (subs.every((d) => d.use)) {
            assert.deepEqual(subs.map((d) => d.use!.submissionsLastHour).sort(), [1, 2, 3]);
          }
          assert.deepEqual(yield* a.use("1"), { requestsToday: 8, submissionsLastHour: 3 });
        })
      ),
  });
};

scenarios("memory", () => {
  const l = makeMemoryRateLimiter(limits);
  return Promise.resolve({ a: l, b: l, close: () => Promise.resolve() });
});

scenarios("redis", () => {
  const prefix = `cds:test:${crypto.randomUUID()}`;
  const ra = new Redis(redisUrl!);
  const rb = new Redis(redisUrl!);
  return Promise.resolve({
    a: makeRedisRateLimiter(ra, limits, prefix),
    b: makeRedisRateLimiter(rb, limits, prefix),
    close: async () => {
      const keys = await ra.keys(`${prefix}:*`);
      if (keys.length > 0) await ra.del(...keys);
      ra.disconnect();
      rb.disconnect();
    },
  });
}, !redisUrl);
