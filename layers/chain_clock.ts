/**
 * `ChainClock`: chain time for each network. Wall time comes from Effect's `Clock` (so tests can drive it with
 * `TestClock`); slot and epoch arithmetic is anchored on the start of the tip's epoch as the chain database records
 * it, which holds for every Shelley-and-later chain (1 s slots, 432,000-slot epochs on mainnet and preprod).
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Clock, Context, Effect, Layer } from "effect";
import type { Network } from "@schemas/network.ts";
import { ChainDatabases } from "./chain_db.ts";

export const slotLengthMs = 1_000;
export const epochLength = 432_000;

/** The first slot of some epoch, and when it began. */
export interface EpochAnchor {
  readonly epoch: number;
  readonly slot: number;
  readonly time: Date;
}

export interface ChainTime {
  readonly anchor: EpochAnchor;
  readonly slotToTime: (slot: number) => Date;
  readonly timeToSlot: (time: Date) => number;
  readonly epochOfSlot: (slot: number) => number;
  readonly epochStartSlot: (epoch: number) => number;
  /** The slot and epoch the network is at now, by wall time. */
  readonly now: Effect.Effect<{ readonly slot: number; readonly epoch: number; readonly time: Date }>;
}

export const makeChainTime = (anchor: EpochAnchor): ChainTime => {
  const slotToTime = (slot: number) => new Date(anchor.time.getTime() + (slot - anchor.slot) * slotLengthMs);
  const timeToSlot = (time: Date) =>
    anchor.slot + Math.floor((time.getTime() - anchor.time.getTime()) / slotLengthMs);
  const epochOfSlot = (slot: number) => anchor.epoch + Math.floor((slot - anchor.slot) / epochLength);
  const epochStartSlot = (epoch: number) => anchor.slot + (epoch - anchor.epoch) * epochLength;
  return {
    anchor,
    slotToTime,
    timeToSlot,
    epochOfSlot,
    epochStartSlot,
    now: Effect.map(Clock.currentTimeMillis, (ms) => {
      const time = new Date(ms);
      const slot = timeToSlot(time);
      return { slot, epoch: epochOfSlot(slot), time };
    }),
  };
};

/** Reads the anchor from the tip's epoch, or from `meta.start_time` (slot 0, epoch 0) on an empty chain. */
export const readEpochAnchor = (sql: SqlClient): Effect.Effect<EpochAnchor, SqlError> =>
  Effect.gen(function* () {
    const [tip] = yield* sql<{ epoch: number; slot: string; time: Date }>`
      select epoch_no as epoch, (slot_no - epoch_slot_no)::text as slot,
             time - make_interval(secs => epoch_slot_no) as time
      from block where block_no is not null and epoch_slot_no is not null
      order by id desc limit 1`;
    if (tip) return { epoch: tip.epoch, slot: Number(tip.slot), time: tip.time };
    const [meta] = yield* sql<{ start: Date }>`select start_time as start from meta order by id limit 1`;
    return { epoch: 0, slot: 0, time: meta?.start ?? new Date(0) };
  });

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
