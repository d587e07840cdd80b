/**
 * `AttemptThrottle`: failed log-ins per account and per client address, and sign-ups per address. Each counter
 * allows `limit` attempts in a window that starts at the first one; past it the account or address waits until
 * the window ends. Shared by all instances through Redis when REDIS_URL is set (falling back to this instance's
 * memory while Redis does not answer), in memory otherwise. Client addresses count per /64 for IPv6, as the
 * request path's throttle does.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect";
import type { Redis } from "ioredis";
import { AppConfig } from "./config.ts";
import { ServiceDatabase } from "./service_db.ts";

export type Counter = "login-account" | "login-address" | "signup-address" | "mail-account";

export interface ThrottleRule {
  readonly limit: number;
  readonly windowMs: number;
}

/**
 * 10 wrong passwords per account and 20 per address in 15 minutes; 10 sign-ups per address and 5 reset mails
 * per account an hour.
 */
export const defaultRules: Readonly<Record<Counter, ThrottleRule>> = {
  "login-account": { limit: 10, windowMs: 15 * 60_000 },
  "login-address": { limit: 20, windowMs: 15 * 60_000 },
  "signup-address": { limit: 10, windowMs: 60 * 60_000 },
  "mail-account": { limit: 5, windowMs: 60 * 60_000 },
};

export interface AttemptThrottleShape {
  /** Milliseconds until `subject` may try again under `counter`; 0 when it may now. */
  readonly blockedFor: (counter: Counter, subject: string) => Effect.Effect<number>;
  /** Counts one attempt (a failed log-in, a sign-up). */
  readonly record: (counter: Counter, subject: string) => Effect.Effect<void>;
  /** Forgets the subject's attempts (a successful log-in clears its account's counter). */
  readonly clear: (counter: Counter, subject: string) => Effect.Effect<void>;
}

export class AttemptThrottle
  extends Context.Tag("AttemptThrottle")<AttemptThrottle, AttemptThrottleShape>() {}

/** Bounded: past this many subjects the one seen longest ago is forgotten. */
const maxSubjects = 50_000;

export const makeMemoryThrottle = (
  rules: Readonly<Record<Counter, ThrottleRule>> = defaultRules,
  now: () => number = Date.now,
): AttemptThrottleShape => {
  const windows = new Map<string, { count: number; endsAt: number }>();
  const current = (key: string) => {
    const w = windows.get(key);
    if (w && w.endsAt <= now()) {
      windows.delete(key);
      return undefined;
    }
    return w;
  };
  return {
    blockedFor: (counter, subject) =>
      Effect.sync(() => {
        const w = current(`${counter}|${subject}`);
        return w && w.count >= rules[counter].limit ? w.endsAt - now() : 0;
      }),
    record: (counter, subject) =>
      Effect.sync(() => {
        const key = `${counter}|${subject}`;
        const w = current(key) ?? { count: 0, endsAt: now() + rules[counter].windowMs };
        w.count++;
        windows.delete(key);
        if (windows.size >= maxSubjects) windows.delete(windows.keys().next().value!);
        windows.set(key, w);
      }),
    clear: (counter, subject) => Effect.sync(() => void windows.delete(`${counter}|${subject}`)),
  };
};

const recordScript = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

/** Redis counters (`INCR` with an expiry set by the first attempt); memory while Redis does not answer. */
export const makeRedisThrottle = (
  redis: Redis,
  prefix: string,
  fallback: AttemptThrottleShape,
  rules: Readonly<Record<Counter, ThrottleRule>> = defaultRules,
): AttemptThrottleShape => {
  const key = (counter: Counter, subject: string) => `${prefix}:${counter}:${subject}`;
  const orFallback = <A>(attempt: () => Promise<A>, instead: Effect.Effect<A>) =>
    Effect.tryPromise(attempt).pipe(Effect.orElse(() => instead));
  return {
    blockedFor: (counter, subject) =>
      orFallback(async () => {
        const [count, ttl] = await Promise.all([
          redis.get(key(counter, subject)),
          redis.pttl(key(counter, subject)),
        ]);
        return Number(count ?? 0) >= rules[counter].limit ? Math.max(ttl, 1) : 0;
      }, fallback.blockedFor(counter, subject)),
    record: (counter, subject) =>
      orFallback(
        async () =>
          void await redis.eval(recordScript, 1, key(counter, subject), String(rules[counter].windowMs)),
        fallback.record(counter, subject),
      ),
    clear: (counter, subject) =>
      orFallback(async () => void await redis.del(key(counter, subject)), fallback.clear(counter, subject)),
  };
};

export const AttemptThrottleLive: Layer.Layer<AttemptThrottle, never, AppConfig | ServiceDatabase> = Layer
  .scoped(
    AttemptThrottle,
    Effect.gen(function* () {
      const config = yield* AppConfig;
      const memory = makeMemoryThrottle();
      if (Option.isNone(config.redisUrl)) return memory;
      const { sql } = yield* ServiceDatabase;
      const installation = yield* sql<{ uuid: string }>`select uuid::text as uuid from cds.installation`.pipe(
        Effect.map((rows) => rows[0]?.uuid ?? "unknown"),
        Effect.orElseSucceed(() => "unknown"),
      );
      const { Redis } = yield* Effect.promise(() => import("ioredis"));
      const redis = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const client = new Redis(Redacted.value(config.redisUrl.pipe(Option.getOrThrow)), {
            lazyConnect: false,
            maxRetriesPerRequest: 1,
            enableOfflineQueue: false,
            retryStrategy: (times) => Math.min(times * 100, 1_000),
          });
          client.on("error", () => {});
          return client;
        }),
        (client) => Effect.promise(() => client.quit().then(() => {}, () => client.disconnect())),
      );
      return makeRedisThrottle(redis, `cds:${installation}:attempts`, memory);
    }),
  );
