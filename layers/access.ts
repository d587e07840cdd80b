/**
 * `Access`: the one gate every protected request passes (spec: Authentication, Errors, Limits). It resolves the
 * key through a cache (a poll of the key store's change counter every 250 ms clears it, so a revocation is
 * honoured within a second without a database read per request), checks status and expiry, spends the key's
 * rate budgets and counts usage. Refusals carry the spec's status, message and rate-limit headers.
 */
import { Clock, Context, Data, Effect, Layer, Option, Schedule } from "effect";
import { looksLikeApiKey } from "@src/domain/api_key.ts";
import type { DatabaseUnavailable } from "@src/domain/errors.ts";
import { type KeyRecord, KeyStore } from "./key_store.ts";
import { type LimitDecision, RateLimiter, type Spend } from "./rate_limiter.ts";
import { type Family, Usage } from "./usage.ts";

export interface Grant {
  readonly key: KeyRecord;
  /**
   * Undefined when the limiter could not decide (the Redis limiter falls back to per-instance budgets itself, so
   * this is only a last resort: served, and logged).
   */
  readonly limit: LimitDecision | undefined;
}

export class AccessDenied extends Data.TaggedError("AccessDenied")<{
  readonly status: 401 | 403 | 429;
  readonly message: string;
  readonly limit?: LimitDecision;
}> {}

export interface AccessShape {
  readonly authorize: (
    secret: string | undefined,
    family: Family,
    spend: Spend,
  ) => Effect.Effect<Grant, AccessDenied | DatabaseUnavailable>;
  /**
   * The same decision without I/O, when the key is cached and the limiter is in memory: the request fast path.
   * Undefined means "take the `authorize` path".
   */
  readonly authorizeNow: (
    secret: string | undefined,
    family: Family,
    spend: Spend,
    now: number,
  ) => Grant | AccessDenied | undefined;
  /** Spends one unit of a key's rate without refusing anything: messages the service sends on a WebSocket. */
  readonly charge: (key: KeyRecord) => Effect.Effect<void>;
}

export class Access extends Context.Tag("Access")<Access, AccessShape>() {}

export const rateLimitMessage = "Rate limit exceeded. Please slow down.";

const refusal = (d: LimitDecision, tier: string): string =>
  d.exceeded === "daily"
    ? `Daily request limit exceeded for the ${tier} tier; it resets at 00:00 UTC`
    : d.exceeded === "submissions"
    ? `Transaction submission limit exceeded for the ${tier} tier; try again in ${
      Math.ceil(d.resetMs / 1000)
    } s`
    : rateLimitMessage;

/** Bounded so random keys cannot grow memory without end; cleared whole when full or when keys change. */
const cacheLimit = 10_000;

export const AccessLive: Layer.Layer<Access, never, KeyStore | RateLimiter | Usage> = Layer.scoped(
  Access,
  Effect.gen(function* () {
    const store = yield* KeyStore;
    const limiter = yield* RateLimiter;
    const usage = yield* Usage;
    const cache = new Map<string, KeyRecord | null>();
    let generation = yield* Effect.orElseSucceed(store.generation, () => -1);
    const poll = Effect.flatMap(store.generation, (g) =>
      Effect.sync(() => {
        if (g !== generation) {
          generation = g;
          cache.clear();
        }
      })).pipe(Effect.catchAll(() => Effect.void));
    yield* Effect.forkScoped(Effect.repeat(poll, Schedule.spaced("250 millis")));

    const lookup = (secret: string) => {
      const cached = cache.get(secret);
      if (cached !== undefined) return Effect.succeed(cached);
      return Effect.map(store.findBySecret(secret), (found) => {
        const record = Option.getOrNull(found);
        if (cache.size >= cacheLimit) cache.clear();
        cache.set(secret, record);
        return record;
      });
    };

    /** Status and expiry of a resolved key: a refusal, or undefined when the key may proceed. */
    const keyRefusal = (secret: string | undefined, key: KeyRecord | null | undefined, now: number) => {
      if (secret === undefined || secret === "") {
        return new AccessDenied({ status: 401, message: "API key required" });
      }
      if (key === null || key === undefined) {
        return new AccessDenied({ status: 401, message: "Invalid API key" });
      }
      if (key.status === "revoked") return new AccessDenied({ status: 401, message: "Key revoked" });
      if (key.expiresAt !== null && key.expiresAt.getTime() <= now) {
        return new AccessDenied({ status: 401, message: "API key expired" });
      }
      if (key.status === "inactive") return new AccessDenied({ status: 403, message: "API key is inactive" });
      return undefined;
    };

    /** After the limiter spoke: a refusal, or the grant with usage counted. */
    const settle = (
      key: KeyRecord,
      family: Family,
      spend: Spend,
      limit: LimitDecision | undefined,
      now: number,
    ) => {
      if (limit && !limit.allowed) {
        return new AccessDenied({ status: 429, message: refusal(limit, key.tier), limit });
      }
      usage.record(key.id, family, now);
      if (spend === "submission") usage.recordSubmission(key.id, now);
      return { key, limit } satisfies Grant;
    };

    const authorizeNow: AccessShape["authorizeNow"] = (secret, family, spend, now) => {
      const key = secret && looksLikeApiKey(secret) ? cache.get(secret) : null;
      if (key === undefined) return undefined;
      const refused = keyRefusal(secret, key, now);
      if (refused) return refused;
      if (!limiter.consumeNow) return undefined;
      return settle(key!, family, spend, limiter.consumeNow(key!.id, key!.tier, spend, now), now);
    };

    const authorize: AccessShape["authorize"] = (secret, family, spend) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis;
        const key = secret && looksLikeApiKey(secret) ? yield* lookup(secret) : null;
        const refused = keyRefusal(secret, key, now);
        if (refused) return yield* refused;
        const limit = yield* limiter.consume(key!.id, key!.tier, spend).pipe(
          Effect.tapError((e) =>
            Effect.logWarning(`rate limiter unavailable, serving unlimited: ${e.message}`)
          ),
          Effect.option,
          Effect.map(Option.getOrUndefined),
        );
        const outcome = settle(key!, family, spend, limit, now);
        return outcome instanceof AccessDenied ? yield* outcome : outcome;
      });

    const charge: AccessShape["charge"] = (key) =>
      limiter.consumeNow
        ? Effect.map(
          Clock.currentTimeMillis,
          (now) => void limiter.consumeNow!(key.id, key.tier, "request", now),
        )
        : Effect.ignore(limiter.consume(key.id, key.tier, "request"));

    return { authorize, authorizeNow, charge };
  }),
);
