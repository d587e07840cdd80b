/**
 * `Cache`: answers the spec caches (price 60 s, protocol parameters 1 h) and figures too costly to compute per
 * request, in memory, per instance; time from Effect's Clock.
 * - Bounded by count and by bytes: entries go once there are `maxEntries` or their approximate size passes
 *   `maxBytes` (keys can come from clients: an address, a pool id, a page), so memory cannot grow without bound;
 *   a value over an eighth of `maxBytes` is returned but not kept. Which go is decided as CLOCK decides (an
 *   approximation of least recently used): a cursor walks the entries in the order they were stored, and one
 *   used since the cursor last passed it is passed over once. A hit only marks its entry: moving it to the end
 *   of the Map (delete and set again, an exact LRU) cost 24-29 µs a hit once the Map held 10,000 entries, V8
 *   rehashing its table as the deleted slots fill it, against 2 µs with a hundred.
 * - Coalesced: callers asking for a key while it is being computed wait for that computation instead of
 *   starting their own (a burst on a costly key costs one computation, not one per request).
 * - `refresh` computes the next value from the previous one, for figures kept current by small updates (an
 *   address's balance: the previous one plus what the new blocks changed).
 */
import { Clock, Context, Deferred, Duration, Effect, FiberId, Layer, Option } from "effect";
import { approximateBytes } from "./approximate_bytes.ts";

export interface CacheShape {
  /** The value stored under `key` while younger than `ttl`, else `compute`'s, stored. */
  readonly getOrCompute: <A, E, R>(
    key: string,
    ttl: Duration.DurationInput,
    compute: Effect.Effect<A, E, R>,
  ) => Effect.Effect<A, E, R>;
  /**
   * Like getOrCompute, but an expired (or fresh-but-absent) value is recomputed by `next` from the previous
   * value (None when there is none), with the age of that previous value in milliseconds.
   */
  readonly refresh: <A, E, R>(
    key: string,
    ttl: Duration.DurationInput,
    next: (
      previous: Option.Option<{ readonly value: A; readonly ageMillis: number }>,
    ) => Effect.Effect<A, E, R>,
  ) => Effect.Effect<A, E, R>;
  /** For the metrics: answers given without computing (kept or being computed) and computations, so far. */
  readonly stats: () => CacheStats;
}

export interface CacheStats {
  readonly hits: number;
  readonly misses: number;
  readonly entries: number;
  readonly bytes: number;
}

export class Cache extends Context.Tag("Cache")<Cache, CacheShape>() {}

interface Entry {
  readonly value: unknown;
  readonly storedAt: number;
  readonly expires: number;
  readonly bytes: number;
  /** Read since the eviction cursor last passed it. */
  used: boolean;
}

export interface CacheBounds {
  readonly maxEntries: number;
  readonly maxBytes: number;
}

export const defaultCacheBounds: CacheBounds = { maxEntries: 10_000, maxBytes: 64 * 1024 * 1024 };

export const makeMemoryCache = (bounds: CacheBounds = defaultCacheBounds): CacheShape & {
  /** Entries held and their approximate bytes (for tests and metrics). */
  readonly size: () => { readonly entries: number; readonly bytes: number };
} => {
  const entries = new Map<string, Entry>();
  const inFlight = new Map<string, Deferred.Deferred<unknown, unknown>>();
  let bytes = 0;
  let hits = 0;
  let misses = 0;

  const remove = (key: string) => {
    const old = entries.get(key);
    if (!old) return;
    entries.delete(key);
    bytes -= old.bytes;
  };
  /** Where the next eviction looks: a live iterator, so entries removed before it are not walked again. */
  let cursor = entries.keys();
  /**
   * Removes the first entry from the cursor on that was not used since the cursor last passed it, never `kept`
   * (the entry just stored, which the cursor may reach first when it is near the end).
   */
  const evictOne = (kept: string) => {
    // at most two rounds: the first clears every mark it passes
    for (let passed = 0; passed <= 2 * entries.size; passed++) {
      let next = cursor.next();
      if (next.done) {
        cursor = entries.keys();
        next = cursor.next();
        if (next.done) return;
      }
      if (next.value === kept) continue;
      const entry = entries.get(next.value)!;
      if (!entry.used) return remove(next.value);
      entry.used = false;
    }
  };
  const store = (key: string, entry: Omit<Entry, "bytes" | "used">) => {
    remove(key);
    const size = approximateBytes(entry.value) + key.length * 2;
    if (size > bounds.maxBytes / 8) return;
    entries.set(key, { ...entry, bytes: size, used: false });
    bytes += size;
    while (entries.size > bounds.maxEntries || bytes > bounds.maxBytes) evictOne(key);
  };

  const refresh = <A, E, R>(
    key: string,
    ttl: Duration.DurationInput,
    next: (
      previous: Option.Option<{ readonly value: A; readonly ageMillis: number }>,
    ) => Effect.Effect<A, E, R>,
  ): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const waiting = inFlight.get(key);
      if (waiting) {
        hits++;
        return Deferred.await(waiting as Deferred.Deferred<A, E>);
      }
      return Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const hit = entries.get(key);
        if (hit && hit.expires > now) {
          hits++;
          hit.used = true;
          return Effect.succeed(hit.value as A);
        }
        misses++;
        const previous = hit
          ? Option.some({ value: hit.value as A, ageMillis: now - hit.storedAt })
          : Option.none();
        // the computation runs on its own fiber: a caller that goes away does not cancel it for the others
        const done = Deferred.unsafeMake<A, E>(FiberId.none);
        inFlight.set(key, done as Deferred.Deferred<unknown, unknown>);
        return next(previous).pipe(
          Effect.tap((value) =>
            Effect.map(Clock.currentTimeMillis, (at) =>
              store(key, { value, storedAt: at, expires: at + Duration.toMillis(ttl) }))
          ),
          Effect.onExit((exit) =>
            Effect.suspend(() => {
              inFlight.delete(key);
              return Deferred.done(done, exit);
            })
          ),
          Effect.forkDaemon,
          Effect.zipRight(Deferred.await(done)),
        );
      });
    });

  return {
    getOrCompute: (key, ttl, compute) => refresh(key, ttl, () => compute),
    refresh,
    size: () => ({ entries: entries.size, bytes }),
    stats: () => ({ hits, misses, entries: entries.size, bytes }),
  };
};

export const CacheMemory: Layer.Layer<Cache> = Layer.sync(Cache, () => makeMemoryCache());
