/**
 * `ChainClock`: chain time for each network (src/domain/chain_time.ts), anchored on the start of the tip's epoch as
 * each chain database records it when the service starts (src/queries/epoch_anchor.ts). Wall time comes from
 * Effect's `Clock`, so tests can drive it with `TestClock`. The health program reads it.
 */
import type { SqlError } from "@effect/sql/SqlError";
import { Context, Effect, Layer } from "effect";
import type { Network } from "@schemas/network.ts";
import { type ChainTime, makeChainTime } from "@src/domain/chain_time.ts";
import { readEpochAnchor } from "@src/queries/epoch_anchor.ts";
import { ChainDatabases } from "./chain_db.ts";

export class ChainClock extends Context.Tag("ChainClock")<ChainClock, {
  readonly get: (network: Network) => ChainTime;
}>() {}

export const ChainClockLive: Layer.Layer<ChainClock, SqlError, ChainDatabases> = Layer.effect(
  ChainClock,
  Effect.gen(function* () {
    const dbs = yield* ChainDatabases;
    const times = new Map<Network, ChainTime>();
    for (const db of dbs.all) times.set(db.network, makeChainTime(yield* readEpochAnchor(db.sql)));
    return { get: (network: Network) => times.get(network)! };
  }),
);
