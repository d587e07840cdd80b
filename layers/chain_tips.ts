/**
 * `ChainTips`: each network's chain tip as db-sync last wrote it, polled once a second (one primary-key probe),
 * so chain-sync sessions waiting at the tip learn of a new block, or of a rollback, without a query of their own.
 * Sessions that read a newer tip themselves report it (`observe`), which wakes the other waiters at once. When
 * the poll last succeeded is kept too: `/health` answers from it without a query of its own.
 */
import { Context, Deferred, Effect, Layer, Schedule } from "effect";
import type { Network } from "@schemas/network.ts";
import { type PointRow, tipPointRow } from "@src/queries/chain_blocks.ts";
import { ChainDatabases } from "./chain_db.ts";

export interface ChainTipWatch {
  /** The newest tip known (undefined on an empty chain). */
  readonly current: () => PointRow | undefined;
  /** Records a tip read elsewhere; waiters wake when it differs from the known one. */
  readonly observe: (tip: PointRow | undefined) => Effect.Effect<void>;
  /** Completes once the tip is no longer `seenHash` (at once if it already is not). */
  readonly changedFrom: (seenHash: string | undefined) => Effect.Effect<void>;
  /** When the poll last read the tip (epoch ms; undefined: never), and its last error if the latest failed. */
  readonly polled: () => { readonly at: number | undefined; readonly error: string | undefined };
}

export class ChainTips extends Context.Tag("ChainTips")<ChainTips, {
  readonly get: (network: Network) => ChainTipWatch;
}>() {}

export const pollInterval = "1 second";

const makeWatch = (initial: PointRow | undefined) =>
  Effect.gen(function* () {
    let tip = initial;
    let changed = yield* Deferred.make<void>();
    const observe = (next: PointRow | undefined) =>
      next?.hash === tip?.hash ? Effect.void : Effect.gen(function* () {
        tip = next;
        const fired = changed;
        changed = yield* Deferred.make<void>();
        yield* Deferred.succeed(fired, undefined);
      });
    const changedFrom = (seenHash: string | undefined) =>
      Effect.suspend(() => (tip?.hash !== seenHash ? Effect.void : Deferred.await(changed)));
    let polled: { at: number | undefined; error: string | undefined } = { at: undefined, error: undefined };
    const record = (error: string | undefined) =>
      Effect.sync(() => {
        polled = error === undefined ? { at: Date.now(), error } : { at: polled.at, error };
      });
    return { current: () => tip, observe, changedFrom, polled: () => polled, record } satisfies
      & ChainTipWatch
      & { readonly record: (error: string | undefined) => Effect.Effect<void> };
  });

export const ChainTipsLive: Layer.Layer<ChainTips, never, ChainDatabases> = Layer.scoped(
  ChainTips,
  Effect.gen(function* () {
    const dbs = yield* ChainDatabases;
    const watches = new Map<Network, ChainTipWatch>();
    for (const db of dbs.all) {
      // replicas: the tip every member in use can answer for (chain_replicas.ts reads theirs each second)
      const read = db.replicas?.tip ?? tipPointRow(db.sql);
      const first = yield* Effect.either(read);
      const watch = yield* makeWatch(first._tag === "Right" ? first.right : undefined);
      yield* watch.record(first._tag === "Right" ? undefined : first.left.message);
      watches.set(db.network, watch);
      const poll = read.pipe(
        Effect.flatMap(watch.observe),
        Effect.zipRight(watch.record(undefined)),
        Effect.catchAll((e) =>
          Effect.zipRight(
            watch.record(e.message),
            Effect.logWarning(`${db.network} tip poll failed: ${e.message}`),
          )
        ),
      );
      yield* Effect.forkScoped(Effect.repeat(poll, Schedule.spaced(pollInterval)));
    }
    return { get: (network: Network) => watches.get(network)! };
  }),
);
