/**
 * `ChainTips`: each network's chain tip as db-sync last wrote it, polled once a second (one primary-key probe),
 * so chain-sync sessions waiting at the tip learn of a new block, or of a rollback, without a query of their own.
 * Sessions that read a newer tip themselves report it (`observe`), which wakes the other waiters at once. When
 * the poll last succeeded is kept too: `/health` answers from it without a query of its own.
 * With REDIS_URL the instances report one tip together (cluster_tip.ts), so a client whose requests land on
 * different instances never sees it go back; without Redis that holds within one instance only. Either way an
 * instance never reports a lower tip than before, except after a rollback (its own view going back).
 */
import { Context, Deferred, Effect, Layer, Option, Schedule } from "effect";
import type { Network } from "@schemas/network.ts";
import { type PointRow, tipPointRow } from "@src/queries/chain_blocks.ts";
import { ChainDatabases } from "./chain_db.ts";
import { Dependencies } from "./dependencies.ts";
import { type ClusterTip, makeClusterTip } from "./cluster_tip.ts";
import { AppConfig } from "./config.ts";
import type { ServiceDatabase } from "./service_db.ts";
import { installationId, sharedRedis } from "./shared_redis.ts";

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
  /** Whether the tip is shared through Redis: it may then trail this instance's own database. */
  readonly shared: boolean;
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

const height = (p: PointRow | undefined) => p?.height ?? -1;

/** A Redis client for the shared tip (reconnecting by itself; no queue: a poll while it is down just fails). */
const clusterTipOf = Effect.gen(function* () {
  const redis = yield* sharedRedis;
  if (redis === undefined) return undefined;
  const installation = yield* installationId;
  return makeClusterTip(redis, `cds:${installation}`, crypto.randomUUID());
});

const makeChainTips = (cluster: ClusterTip | undefined) =>
  Effect.gen(function* () {
    const dbs = yield* ChainDatabases;
    const board = yield* Effect.serviceOption(Dependencies);
    const scope = yield* Effect.scope;
    const watches = new Map<Network, ChainTipWatch>();
    for (const db of dbs.all) {
      // replicas: the tip every member in use can answer for (chain_replicas.ts reads theirs each second)
      const own = db.replicas?.tip ?? tipPointRow(db.sql);
      let lastOwn: PointRow | undefined;
      let reported: PointRow | undefined;
      let sharing = true;
      let wasTrailing = false;
      let scheduled: string | undefined;
      const made: { watch?: ChainTipWatch } = {};
      /** Reports `tip` unless it is below the reported one. */
      const raise = (tip: PointRow | undefined) => {
        if (height(tip) >= height(reported)) reported = tip;
        return reported;
      };
      /** Own view, shared when Redis answers; never below what was reported before but for a rollback. */
      const read = Effect.gen(function* () {
        const view = yield* own;
        const rolledBack = lastOwn !== undefined && height(view) < height(lastOwn);
        lastOwn = view;
        if (rolledBack) reported = undefined;
        let next = view;
        if (cluster && view) {
          const shared = yield* Effect.either(cluster.share(db.network, view, rolledBack));
          if (shared._tag === "Right") {
            const { effective, pending } = shared.right;
            next = effective;
            if (pending && pending.at <= Date.now()) next = pending.tip;
            else if (pending && pending.tip.hash !== scheduled) {
              // every instance switches to it at that moment (cluster_tip.ts)
              scheduled = pending.tip.hash;
              yield* Effect.forkIn(
                Effect.delay(
                  Effect.suspend(() => made.watch?.observe(raise(pending.tip)) ?? Effect.void),
                  Math.max(0, pending.at - Date.now()),
                ),
                scope,
              );
            }
          }
          // trailing the tip the others report (it joined, or its members fell behind): out of rotation
          // (/ready 503) until caught up, as a balancer would otherwise send it requests it cannot answer yet
          const trailing = shared._tag === "Right" && height(view) < height(next);
          if (trailing !== wasTrailing) {
            wasTrailing = trailing;
            Option.map(board, (b) =>
              b.set(
                `${db.network} tip`,
                trailing ? "down" : "ok",
                trailing
                  ? `catching up: its database is at block ${height(view)}, the instances report ${
                    height(next)
                  }`
                  : undefined,
              ));
          }
          if (sharing !== (shared._tag === "Right")) {
            sharing = shared._tag === "Right";
            yield* sharing
              ? Effect.logInfo(`${db.network} tip: shared through Redis again`)
              : Effect.logWarning(
                `${db.network} tip: ${
                  shared._tag === "Left" ? shared.left.message : ""
                }; reporting this instance's own tip until Redis answers`,
              );
          }
        }
        return raise(next);
      });
      const first = yield* Effect.either(read);
      const watch = yield* makeWatch(first._tag === "Right" ? first.right : undefined);
      made.watch = watch;
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
    return { get: (network: Network) => watches.get(network)!, shared: cluster !== undefined };
  });

/** Each instance on its own. */
export const ChainTipsLive: Layer.Layer<ChainTips, never, ChainDatabases> = Layer.scoped(
  ChainTips,
  makeChainTips(undefined),
);

/** Shared through Redis when REDIS_URL is set (cluster_tip.ts), each instance on its own otherwise. */
export const ChainTipsSharedLive: Layer.Layer<
  ChainTips,
  never,
  ChainDatabases | AppConfig | ServiceDatabase
> = Layer.scoped(ChainTips, Effect.flatMap(clusterTipOf, makeChainTips));
