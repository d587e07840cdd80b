/**
 * `AttemptThrottle`: log-in attempts per account, per trusted browser (device cookie) and per client address,
 * and sign-ups per address. Each counter allows `limit` attempts in a window that starts at the first one; past
 * it the subject waits until the window ends. An attempt is RESERVED (counted) before the work it guards, in one
 * atomic step (a synchronous update in memory, a Lua script in Redis), so any number of concurrent attempts
 * gets at most `limit` through; one that turns out not to count (a right password, work that could not run) is
 * released again. Shared by all instances through Redis when REDIS_URL is set (falling back to this instance's
 * memory while Redis does not answer), in memory otherwise. Client addresses count per /64 for IPv6, as the
 * request path's throttle does.
 */
import { Context, Effect, Layer } from "effect";
import type { Redis } from "ioredis";
import type { AppConfig } from "./config.ts";
import type { ServiceDatabase } from "./service_db.ts";
import { installationId, sharedRedis } from "./shared_redis.ts";

export type Counter = "login-account" | "login-device" | "login-address" | "signup-address" | "mail-account";

export interface ThrottleRule {
  readonly limit: number;
  readonly windowMs: number;
}

/**
 * 10 wrong passwords per account (or per trusted browser of it) and 20 per address in 15 minutes; 10 sign-ups
 * per address and 5 reset mails per account an hour.
 */
export const defaultRules: Readonly<Record<Counter, ThrottleRule>> = {
  "login-account": { limit: 10, windowMs: 15 * 60_000 },
  "login-device": { limit: 10, windowMs: 15 * 60_000 },
  "login-address": { limit: 20, windowMs: 15 * 60_000 },
  "signup-address": { limit: 10, windowMs: 60 * 60_000 },
  "mail-account": { limit: 5, windowMs: 60 * 60_000 },
};

export interface AttemptThrottleShape {
  /**
   * Counts one attempt if the subject has allowance left: 0 when it was counted (go ahead), otherwise the
   * milliseconds until the subject may try again (nothing counted).
   */
  readonly reserve: (counter: Counter, subject: string) => Effect.Effect<number>;
  /** Gives one reserved attempt back (it did not fail, or never ran). */
  readonly release: (counter: Counter, subject: string) => Effect.Effect<void>;
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
    // synchronous from the read to the write: no other attempt can come between
    reserve: (counter, subject) =>
      Effect.sync(() => {
        const key = `${counter}|${subject}`;
        const w = current(key) ?? { count: 0, endsAt: now() + rules[counter].windowMs };
        if (w.count >= rules[counter].limit) return Math.max(1, w.endsAt - now());
        w.count++;
        windows.delete(key);
        if (windows.size >= maxSubjects) windows.delete(windows.keys().next().value!);
        windows.set(key, w);
        return 0;
      }),
    release: (counter, subject) =>
      Effect.sync(() => {
        const key = `${counter}|${subject}`;
        const w = current(key);
        if (w === undefined) return;
        if (w.count <= 1) windows.delete(key);
        else w.count--;
      }),
    clear: (counter, subject) => Effect.sync(() => void windows.delete(`${counter}|${subject}`)),
  };
};

/** KEYS[1] the counter; ARGV window ms, limit. 0 = counted; otherwise the milliseconds left of the window. */
const reserveScript = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[2]) then
  local left = redis.call('PTTL', KEYS[1])
  if left > 0 then return left end
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return tonumber(ARGV[1])
end
n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 0`;

const releaseScript = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 1 then redis.call('DECR', KEYS[1]) elseif n == 1 then redis.call('DEL', KEYS[1]) end
return 0`;

/** Redis counters (one script per reservation, so instances share one atomic count); memory while Redis does not answer. */
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
    reserve: (counter, subject) =>
      orFallback(
        async () =>
          Number(
            await redis.eval(
              reserveScript,
              1,
              key(counter, subject),
              String(rules[counter].windowMs),
              String(rules[counter].limit),
            ),
          ),
        fallback.reserve(counter, subject),
      ),
    release: (counter, subject) =>
      orFallback(
        async () => void await redis.eval(releaseScript, 1, key(counter, subject)),
        fallback.release(counter, subject),
      ),
    clear: (counter, subject) =>
      orFallback(async () => void await redis.del(key(counter, subject)), fallback.clear(counter, subject)),
  };
};

export const AttemptThrottleLive: Layer.Layer<AttemptThrottle, never, AppConfig | ServiceDatabase> = Layer
  .scoped(
    AttemptThrottle,
    Effect.gen(function* () {
      const memory = makeMemoryThrottle();
      const redis = yield* sharedRedis;
      if (redis === undefined) return memory;
      const installation = yield* installationId;
      return makeRedisThrottle(redis, `cds:${installation}:attempts`, memory);
    }),
  );
