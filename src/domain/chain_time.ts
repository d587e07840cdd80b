/**
 * Slot, epoch and time arithmetic of a Shelley-and-later chain (1 s slots, 432,000-slot epochs:
 * network_constants.ts), anchored on the first slot of some epoch: the chain clock, the devnet's blocks and the
 * demo chain generator count slots and epochs with these.
 */
import { Clock, Effect } from "effect";
import { epochLength, slotLengthMs } from "./network_constants.ts";

/** The first slot of some epoch. */
export interface SlotAnchor {
  readonly epoch: number;
  readonly slot: number;
}

/** The first slot of some epoch, and when it began. */
export interface EpochAnchor extends SlotAnchor {
  readonly time: Date;
}

/** A chain born in the Shelley era or later (the demo chains): epoch 0 starts at slot 0. */
export const genesisAnchor: SlotAnchor = { epoch: 0, slot: 0 };

export const epochOfSlot = (anchor: SlotAnchor, slot: number): number =>
  anchor.epoch + Math.floor((slot - anchor.slot) / epochLength);

export const epochStartSlot = (anchor: SlotAnchor, epoch: number): number =>
  anchor.slot + (epoch - anchor.epoch) * epochLength;

/** The slot's place in its epoch (db-sync's epoch_slot_no). */
export const slotInEpoch = (anchor: SlotAnchor, slot: number): number =>
  slot - epochStartSlot(anchor, epochOfSlot(anchor, slot));

export interface ChainTime {
  readonly anchor: EpochAnchor;
  readonly slotToTime: (slot: number) => Date;
  readonly timeToSlot: (time: Date) => number;
  readonly epochOfSlot: (slot: number) => number;
  readonly epochStartSlot: (epoch: number) => number;
  /** The slot and epoch the network is at now, by wall time (Effect's `Clock`, so tests can drive it). */
  readonly now: Effect.Effect<{ readonly slot: number; readonly epoch: number; readonly time: Date }>;
}

export const makeChainTime = (anchor: EpochAnchor): ChainTime => {
  const slotToTime = (slot: number) => new Date(anchor.time.getTime() + (slot - anchor.slot) * slotLengthMs);
  const timeToSlot = (time: Date) =>
    anchor.slot + Math.floor((time.getTime() - anchor.time.getTime()) / slotLengthMs);
  return {
    anchor,
    slotToTime,
    timeToSlot,
    epochOfSlot: (slot) => epochOfSlot(anchor, slot),
    epochStartSlot: (epoch) => epochStartSlot(anchor, epoch),
    now: Effect.map(Clock.currentTimeMillis, (ms) => {
      const time = new Date(ms);
      const slot = timeToSlot(time);
      return { slot, epoch: epochOfSlot(anchor, slot), time };
    }),
  };
};
