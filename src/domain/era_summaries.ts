/**
 * Ogmios' era summaries from db-sync's era history (what wallets and dApp libraries use to turn slots into
 * times). Byron has 20 s slots and 21,600-slot epochs; every later era 1 s slots and 432,000-slot epochs
 * (mainnet and preprod). Eras a network skipped (a chain born in Conway) start and end at the same bound.
 */
import {
  byronEpochLength,
  byronSafeZone,
  byronSlotLengthMs,
  epochLength,
  shelleySafeZone,
  slotLengthMs,
} from "./network_constants.ts";

/** The ledger eras a chain database has seen (src/queries/eras.ts reads it from db-sync). */
export interface EraHistory {
  /** The first epoch of each protocol major version, in order. */
  readonly firstEpochs: ReadonlyArray<{ readonly major: number; readonly epoch: number }>;
  readonly tipEpoch: number;
  readonly tipSlot: number;
}

export const eraNames = ["byron", "shelley", "allegra", "mary", "alonzo", "babbage", "conway"] as const;
export type Era = typeof eraNames[number];

/** The era of a protocol major version. */
export const eraOfMajor = (major: number): Era =>
  major <= 1
    ? "byron"
    : major <= 4
    ? eraNames[major - 1]!
    : major <= 6
    ? "alonzo"
    : major <= 8
    ? "babbage"
    : "conway";

interface Bound {
  readonly time: { readonly seconds: number };
  readonly slot: number;
  readonly epoch: number;
}

const byron = {
  epochLength: byronEpochLength,
  slotLength: { milliseconds: byronSlotLengthMs },
  safeZone: byronSafeZone,
};
const shelley = { epochLength, slotLength: { milliseconds: slotLengthMs }, safeZone: shelleySafeZone };

export const eraSummaries = (history: EraHistory) => {
  const shelleyStart = history.firstEpochs[0]?.epoch ?? 0;
  const byronEndSlot = shelleyStart * byron.epochLength;
  const bound = (epoch: number): Bound => {
    if (epoch <= shelleyStart) {
      const slot = epoch * byron.epochLength;
      return { time: { seconds: (slot * byronSlotLengthMs) / 1000 }, slot, epoch };
    }
    const slot = byronEndSlot + (epoch - shelleyStart) * shelley.epochLength;
    return {
      time: { seconds: (byronEndSlot * byronSlotLengthMs + (slot - byronEndSlot) * slotLengthMs) / 1000 },
      slot,
      epoch,
    };
  };
  // the first epoch of each era after Byron (an era no epoch ran in starts where the next one does)
  const starts = new Map<Era, number>();
  for (const { major, epoch } of history.firstEpochs) {
    const era = eraOfMajor(major);
    if (!starts.has(era)) starts.set(era, epoch);
  }
  const current = eraOfMajor(history.firstEpochs[history.firstEpochs.length - 1]?.major ?? 10);
  const lastIndex = eraNames.indexOf(current);
  const eras = eraNames.slice(0, lastIndex + 1);
  const startEpoch = (i: number): number => {
    if (i === 0) return 0;
    for (let j = i; j <= lastIndex; j++) {
      const s = starts.get(eraNames[j]!);
      if (s !== undefined) return s;
    }
    return shelleyStart;
  };
  // the known horizon: the end of the epoch that holds the tip plus the safe zone
  const horizonSlot = history.tipSlot + shelley.safeZone;
  const horizonEpoch = shelleyStart + Math.floor((horizonSlot - byronEndSlot) / shelley.epochLength) + 1;
  return eras.map((era, i) => ({
    start: bound(startEpoch(i)),
    end: bound(i === lastIndex ? Math.max(horizonEpoch, startEpoch(i)) : startEpoch(i + 1)),
    parameters: era === "byron" ? byron : shelley,
  }));
};

/** The bound at which the current era began. */
export const currentEraStart = (history: EraHistory) => {
  const summaries = eraSummaries(history);
  return summaries[summaries.length - 1]!.start;
};
