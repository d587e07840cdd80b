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
  /** Undefined when the limiter could not be reached (requests are then served unlimited, and logged). */
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

    const authorize: AccessShape["authorize"] = (secret, family, spend) =>
      Effect.gen(function* () {
        if (secret === undefined || secret === "") {
          return yield* new AccessDenied({ status: 401, message: "API key required" });
        }
        const key = looksLikeApiKey(secret) ? yield* lookup(secret) : null;
        if (key === null) return yield* new AccessDenied({ status: 401, message: "Invalid API key" });
        if (key.status === "revoked") return yield* new AccessDenied({ status: 401, message: "Key revoked" });
        if (key.expiresAt !== null && key.expiresAt.getTime() <= (yield* Clock.currentTimeMillis)) {
          return yield* new AccessDenied({ status: 401, message: "API key expired" });
        }
        if (key.status === "inactive") {
          return yield* new AccessDenied({ status: 403, message: "API key is inactive" });
        }
        const limit = yield* limiter.consume(key.id, key.tier, spend).pipe(
          Effect.tapError((e) =>
            Effect.logWarning(`rate limiter unavailable, serving unlimited: ${e.message}`)
          ),
          Effect.option,
          Effect.map(Option.getOrUndefined),
        );
        if (limit && !limit.allowed) {
          return yield* new AccessDenied({ status: 429, message: refusal(limit, key.tier), limit });
        }
        yield* usage.record(key.id, family);
        if (spend === "submission") {
          yield* usage.recordSubmission(key.id);
        }
        return { key, limit };
      });

    return { authorize };
  }),
);
