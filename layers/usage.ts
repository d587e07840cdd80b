/**
 * `Usage`: requests per key, UTC day and endpoint family, and transaction submissions. Counted in memory on the
 * request path (a map increment) and flushed to the service database every second and at shutdown, so the
 * counts survive restarts without a database write per request.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import { Context, Effect, Layer, Schedule } from "effect";
import { DatabaseUnavailable } from "@src/domain/errors.ts";
import { ServiceDatabase } from "./service_db.ts";

export type Family = "rest" | "explorer" | "graphql" | "ogmios" | "account";

export interface UsageShape {
  /** Counts one request at `now` (milliseconds): a map increment, nothing else. */
  readonly record: (keyId: number, family: Family, now: number) => void;
  readonly recordSubmission: (keyId: number, now: number) => void;
  /** Writes what has been counted since the last flush (one transaction). */
  readonly flush: Effect.Effect<void, DatabaseUnavailable>;
}

export class Usage extends Context.Tag("Usage")<Usage, UsageShape>() {}

let cachedDay = { start: 0, end: 0, text: "" };
/** The UTC date of a time, computed once a day rather than per request. */
const dayOf = (ms: number) => {
  if (ms < cachedDay.start || ms >= cachedDay.end) {
    const start = ms - (ms % 86_400_000);
    cachedDay = { start, end: start + 86_400_000, text: new Date(start).toISOString().slice(0, 10) };
  }
  return cachedDay.text;
};

export const makeUsage = (sql: SqlClient): UsageShape => {
  let requests = new Map<string, number>();
  let submissions: Array<{ keyId: number; at: Date }> = [];
  return {
    record: (keyId, family, now) => {
      const k = `${keyId}|${dayOf(now)}|${family}`;
      requests.set(k, (requests.get(k) ?? 0) + 1);
    },
    recordSubmission: (keyId, now) => {
      submissions.push({ keyId, at: new Date(now) });
    },
    flush: Effect.suspend(() => {
      if (requests.size === 0 && submissions.length === 0) return Effect.void;
      const batch = requests;
      const subs = submissions;
      requests = new Map();
      submissions = [];
      const rows = [...batch].map(([k, n]) => {
        const [keyId, day, family] = k.split("|");
        return { key_id: Number(keyId), day, family, requests: n };
      });
      return sql.withTransaction(Effect.gen(function* () {
        if (rows.length > 0) {
          yield* sql`
            insert into cds.usage_daily ${sql.insert(rows)}
            on conflict (key_id, day, family) do update set requests = cds.usage_daily.requests + excluded.requests`;
        }
        if (subs.length > 0) {
          yield* sql`insert into cds.submission ${
            sql.insert(subs.map((s) => ({ key_id: s.keyId, at: s.at })))
          }`;
        }
      })).pipe(
        Effect.tapError(() =>
          Effect.sync(() => {
            // keep the counts for the next attempt rather than lose them
            for (const [k, n] of batch) requests.set(k, (requests.get(k) ?? 0) + n);
            submissions = [...subs, ...submissions];
          })
        ),
        Effect.mapError((e) => new DatabaseUnavailable({ network: "service", message: e.message })),
      );
    }),
  };
};

/**
 * Flushes every second (a crash loses at most that much) in the background and once more when the service stops.
 * While the service database is away the counts wait in memory; a warning a minute says so, not one a second.
 */
export const UsageLive: Layer.Layer<Usage, never, ServiceDatabase> = Layer.scoped(
  Usage,
  Effect.gen(function* () {
    const { sql } = yield* ServiceDatabase;
    const usage = makeUsage(sql);
    let warnedAt = 0;
    const flushLogged = usage.flush.pipe(
      Effect.catchAll((e) =>
        Effect.suspend(() => {
          if (Date.now() - warnedAt < 60_000) return Effect.void;
          warnedAt = Date.now();
          return Effect.logWarning(`usage flush failed, will retry each second: ${e.message}`);
        })
      ),
    );
    yield* Effect.forkScoped(Effect.repeat(flushLogged, Schedule.spaced("1 second")));
    yield* Effect.addFinalizer(() => flushLogged);
    return usage;
  }),
);
