/**
 * The epoch totals each chain database's GraphQL statements start from (src/queries/epoch_progress.ts), per SQL
 * client: advanced at most once a second, by the request that finds them older and read `epoch`, while other
 * requests go on with the ones they have (any kept totals give the view's answer; newer ones only mean fewer
 * blocks summed per read). Nothing is kept where `epoch` is not db-sync's 13.7.2 view (a table before it).
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import { Deferred, Effect, FiberId } from "effect";
import {
  advanceEpochProgress,
  epochIsFinalizedView,
  type EpochProgress,
  noEpochProgress,
} from "@src/queries/epoch_progress.ts";
import type { RowSources } from "./selection.ts";
import { epochSource } from "./epoch_source.ts";

interface Kept {
  /** undefined until asked whether `epoch` is the view; false: never a stand-in. */
  view: boolean | undefined;
  progress: EpochProgress;
  /** When the last advance started (epoch ms). */
  at: number;
  running: boolean;
  /** The renewal under way (renewEpochSources), which every request finding the same totals stale awaits. */
  renewal: Deferred.Deferred<void> | undefined;
}

const advanceEveryMs = 1000;
const kept = new WeakMap<SqlClient, Kept>();

const keptFor = (sql: SqlClient): Kept => {
  let k = kept.get(sql);
  if (!k) {
    kept.set(
      sql,
      k = { view: undefined, progress: noEpochProgress, at: 0, running: false, renewal: undefined },
    );
  }
  return k;
};

/** The stand-ins for statements on `sql` now: `epoch` from the kept totals once it is known to be the view. */
export const epochSources = (sql: SqlClient): RowSources | undefined => {
  const k = keptFor(sql);
  // before the first advance the stand-in would sum every block (slower than the view's own plan)
  if (k.view !== true || k.progress === noEpochProgress) return undefined;
  const progress = k.progress;
  return new Map([["epoch", (b) => epochSource(b, progress)]]);
};

/**
 * Advances the totals when they are over a second old and no other request is advancing them; true when they
 * changed (the caller compiles again). A failure keeps the old ones: they still answer exactly.
 */
export const advanceEpochSources = (sql: SqlClient): Effect.Effect<boolean> =>
  Effect.suspend(() => {
    const k = keptFor(sql);
    if (k.view === false || k.running || Date.now() - k.at < advanceEveryMs) return Effect.succeed(false);
    k.running = true;
    k.at = Date.now();
    return Effect.gen(function* () {
      if (k.view === undefined) k.view = yield* epochIsFinalizedView(sql);
      if (!k.view) return false;
      k.progress = yield* advanceEpochProgress(sql, k.progress);
      return true;
    }).pipe(
      Effect.catchAll((e) => Effect.as(Effect.logWarning(`epoch totals not advanced: ${e.message}`), false)),
      Effect.ensuring(Effect.sync(() => void (k.running = false))),
    );
  });

/** The totals statements compile with now (`epochSources`): what a failed statement names as stale. */
export const keptEpochProgress = (sql: SqlClient): EpochProgress => keptFor(sql).progress;

/**
 * Advances the totals now, whatever their age: a statement found `stale` no longer holding (a rollback of their
 * upper block, a finalized row gone or come). Once per stale totals: every request that found them stale waits
 * for the one renewal, and totals renewed since need none. When it fails the totals are dropped, so statements
 * read the view itself until the next advance.
 */
export const renewEpochSources = (sql: SqlClient, stale: EpochProgress): Effect.Effect<void> =>
  Effect.suspend(() => {
    const k = keptFor(sql);
    if (k.progress !== stale) return Effect.void;
    if (k.renewal) return Deferred.await(k.renewal);
    const renewal = Deferred.unsafeMake<void>(FiberId.none);
    k.renewal = renewal;
    k.at = Date.now();
    return advanceEpochProgress(sql, k.progress).pipe(
      Effect.match({
        onFailure: () => void (k.progress = noEpochProgress),
        onSuccess: (progress) => void (k.progress = progress),
      }),
      Effect.ensuring(Effect.suspend(() => {
        k.renewal = undefined;
        return Deferred.succeed(renewal, undefined);
      })),
    );
  });

/**
 * Statements that read the stand-in run as prepared statements (layers/pg_prepared.ts): PostgreSQL then plans
 * one once per connection and reuses the plan (about 1 ms against 3-4 ms a statement, most of it planning).
 * Prepared statements live on every connection of the pool for its life, so only this many texts are ever
 * prepared per process; a client sending ever new query shapes gets the unprepared path after that.
 */
const maxPreparedTexts = 32;
const preparedTexts = new Set<string>();

/** `text` marked to be prepared while there is room for it (see above). */
export const preparedStandInText = (text: string): string => {
  if (!preparedTexts.has(text)) {
    if (preparedTexts.size >= maxPreparedTexts) return text;
    preparedTexts.add(text);
  }
  return `/* prepared */ ${text}`;
};
