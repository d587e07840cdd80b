/**
 * Chain time: slot and epoch arithmetic anchored on the start of some epoch, which holds for every
 * Shelley-and-later chain (1 s slots, 432,000-slot epochs on mainnet and preprod). Wall time comes from Effect's
 * `Clock`, so tests can drive it with `TestClock`.
 */
import { Clock, Effect } from "effect";

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
