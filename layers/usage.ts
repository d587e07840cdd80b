/**
 * `Usage`: requests per key, UTC day and endpoint family, 429s likewise, transaction submissions, each key's last
 * use, and the prepaid credits accounts spend. Counted in memory on the request path (a map increment) and
 * flushed to the service database every second and at shutdown, so the counts survive restarts without a
 * database write per request.
 *
 * Credits: each instance spends an account's balance in memory and subtracts what it spent in the database at
 * each flush, reading back the balance every instance left. With several instances sharing one database, an
 * account can therefore overshoot its credits by at most about one second of its requests per instance (what
 * the others spent since their last flush); the stored balance never goes below 0.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import { Context, Effect, Layer, Schedule } from "effect";
import { DatabaseUnavailable } from "@src/domain/errors.ts";
import { ServiceDatabase } from "./service_db.ts";

import type { Family } from "@src/domain/families.ts";

export type { Family };

export interface UsageShape {
  /** Counts one request at `now` (milliseconds): a map increment, nothing else. */
  readonly record: (keyId: number, family: Family, now: number) => void;
  /** Counts one request refused with 429. */
  readonly recordRefused: (keyId: number, family: Family, now: number) => void;
  /**
   * A request counted as served at `servedAt` turned out refused with 429 at `now` (a submission known only
   * from its body).
   */
  readonly recordRefusedInstead: (keyId: number, family: Family, servedAt: number, now: number) => void;
  readonly recordSubmission: (keyId: number, now: number) => void;
  /** The balance of a prepaid account as just read from the database (null = unlimited). */
  readonly observeCredits: (accountId: number, credits: number | null) => void;
  /**
   * Whether the account has a credit left, as far as this instance knows; `seed` (the balance its key's record
   * was read with) stands in for an account this instance does not know (yet, or any more).
   */
  readonly hasCredit: (accountId: number, seed: number) => boolean;
  /** Spends one credit; false when none is left. */
  readonly spendCredit: (accountId: number, seed: number) => boolean;
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

/** An account's balance as of the last read or flush, and what this instance spent since. */
interface Balance {
  stored: number;
  spent: number;
  /** Spent and being written by a flush now. */
  flushing: number;
}

/** Bounded like the key cache: accounts not seen lately are forgotten (and read again when next used). */
const balanceLimit = 10_000;

export const makeUsage = (sql: SqlClient): UsageShape => {
  /** Per `key|day|family`: requests served and refused with 429. */
  let requests = new Map<string, { served: number; refused: number }>();
  let submissions: Array<{ keyId: number; at: Date }> = [];
  let lastUsed = new Map<number, number>();
  const balances = new Map<number, Balance>();
  const count = (keyId: number, family: Family, now: number, field: "served" | "refused", by = 1) => {
    const k = `${keyId}|${dayOf(now)}|${family}`;
    let entry = requests.get(k);
    if (!entry) requests.set(k, entry = { served: 0, refused: 0 });
    entry[field] += by;
  };
  const left = (b: Balance) => b.stored - b.spent - b.flushing;
  const observe = (accountId: number, credits: number) => {
    const b = balances.get(accountId);
    if (b) b.stored = credits;
    else {
      if (balances.size >= balanceLimit) {
        const idle = [...balances].find(([, v]) => v.spent === 0 && v.flushing === 0);
        if (idle) balances.delete(idle[0]);
      }
      balances.set(accountId, { stored: credits, spent: 0, flushing: 0 });
    }
  };
  /** The account's balance, seeded when unknown (the next flush brings the stored one). */
  const balanceOf = (accountId: number, seed: number) => {
    if (!balances.has(accountId)) observe(accountId, seed);
    return balances.get(accountId)!;
  };
  return {
    record: (keyId, family, now) => {
      count(keyId, family, now, "served");
      lastUsed.set(keyId, now);
    },
    recordRefused: (keyId, family, now) => count(keyId, family, now, "refused"),
    recordRefusedInstead: (keyId, family, servedAt, now) => {
      // a flush in between leaves the served one written: then this batch's served count for its day goes
      // below zero, which the upsert adds to the stored day (never below it: served was written first)
      count(keyId, family, servedAt, "served", -1);
      count(keyId, family, now, "refused");
    },
    recordSubmission: (keyId, now) => {
      submissions.push({ keyId, at: new Date(now) });
    },
    observeCredits: (accountId, credits) => {
      if (credits === null) balances.delete(accountId);
      else observe(accountId, credits);
    },
    hasCredit: (accountId, seed) => left(balanceOf(accountId, seed)) > 0,
    spendCredit: (accountId, seed) => {
      const b = balanceOf(accountId, seed);
      if (left(b) <= 0) return false;
      b.spent++;
      return true;
    },
    flush: Effect.suspend(() => {
      const spending = [...balances].filter(([, b]) => b.spent > 0);
      if (requests.size === 0 && submissions.length === 0 && spending.length === 0) return Effect.void;
      const batch = requests;
      const subs = submissions;
      const used = lastUsed;
      requests = new Map();
      submissions = [];
      lastUsed = new Map();
      for (const [, b] of spending) {
        b.flushing = b.spent;
        b.spent = 0;
      }
      const rows = [...batch].map(([k, n]) => {
        const [keyId, day, family] = k.split("|");
        return { key_id: Number(keyId), day, family, requests: n.served, rate_limited: n.refused };
      });
      return sql.withTransaction(Effect.gen(function* () {
        if (rows.length > 0) {
          yield* sql`
            insert into cds.usage_daily ${sql.insert(rows)}
            on conflict (key_id, day, family) do update set requests = cds.usage_daily.requests + excluded.requests,
              rate_limited = cds.usage_daily.rate_limited + excluded.rate_limited`;
        }
        if (subs.length > 0) {
          yield* sql`insert into cds.submission ${
            sql.insert(subs.map((s) => ({ key_id: s.keyId, at: s.at })))
          }`;
        }
        if (used.size > 0) {
          // one statement for all keys (array literals of our own numbers and ISO times)
          const ids = `{${[...used.keys()].join(",")}}`;
          const ats = `{${[...used.values()].map((at) => new Date(at).toISOString()).join(",")}}`;
          yield* sql`
            update cds.api_key k set last_used_at = greatest(k.last_used_at, u.at)
            from (select unnest(${ids}::bigint[]) as id, unnest(${ats}::timestamptz[]) as at) u
            where k.id = u.id`;
        }
        const stored: Array<[number, number | null]> = [];
        for (const [accountId, b] of spending.sort((a, b) => a[0] - b[0])) {
          const [row] = yield* sql<{ credits: string | null }>`
            update cds.account set credits = greatest(credits - ${b.flushing}, 0)
            where id = ${accountId} returning credits::text as credits`;
          stored.push([accountId, row?.credits == null ? null : Number(row.credits)]);
        }
        return stored;
      })).pipe(
        Effect.tap((stored) =>
          Effect.sync(() => {
            for (const [accountId, credits] of stored) {
              const b = balances.get(accountId);
              if (!b) continue;
              b.flushing = 0;
              if (credits === null) balances.delete(accountId);
              else b.stored = credits;
            }
          })
        ),
        Effect.tapError(() =>
          Effect.sync(() => {
            // keep the counts for the next attempt rather than lose them
            for (const [k, n] of batch) {
              const entry = requests.get(k) ?? { served: 0, refused: 0 };
              entry.served += n.served;
              entry.refused += n.refused;
              requests.set(k, entry);
            }
            submissions = [...subs, ...submissions];
            for (const [keyId, at] of used) lastUsed.set(keyId, Math.max(at, lastUsed.get(keyId) ?? 0));
            for (const [, b] of spending) {
              b.spent += b.flushing;
              b.flushing = 0;
            }
          })
        ),
        Effect.asVoid,
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
