/**
 * `Cache`: get-or-compute with a time to live, for answers the spec caches (price 60 s, protocol parameters 1 h)
 * and totals too costly to compute per request. In memory, per instance; time from Effect's Clock.
 */
import { Clock, Context, Duration, Effect, Layer } from "effect";

export interface CacheShape {
  readonly getOrCompute: <A, E, R>(
    key: string,
    ttl: Duration.DurationInput,
    compute: Effect.Effect<A, E, R>,
  ) => Effect.Effect<A, E, R>;
}

export class Cache extends Context.Tag("Cache")<Cache, CacheShape>() {}

export const makeMemoryCache = (): CacheShape => {
  const entries = new Map<string, { readonly value: unknown; readonly expires: number }>();
  return {
    getOrCompute: <A, E, R>(key: string, ttl: Duration.DurationInput, compute: Effect.Effect<A, E, R>) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const hit = entries.get(key);
        if (hit && hit.expires > now) return Effect.succeed(hit.value as A);
        return Effect.tap(
          compute,
          (value) => Effect.sync(() => entries.set(key, { value, expires: now + Duration.toMillis(ttl) })),
        );
      }),
  };
};

export const CacheMemory: Layer.Layer<Cache> = Layer.sync(Cache, makeMemoryCache);
