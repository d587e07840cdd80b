/**
 * The genesis constants every network served here shares (mainnet's and preprod's, and so the demo chains' and
 * the devnet's): slot and epoch lengths, the security parameter and the maximum supply. One place; the demo chain
 * generator, the devnet, the queries, the era summaries and the chain clock read them.
 */

/** Shelley-and-later slots: 1 s (shelley-genesis slotLength). */
export const slotLengthMs = 1_000;

/** Slots per Shelley-and-later epoch (shelley-genesis epochLength): five days. */
export const epochLength = 432_000;

/** The security parameter k (shelley-genesis securityParam). */
export const securityParam = 2_160;

/** The Shelley-and-later safe zone, 3k/f slots with f (activeSlotsCoeff) = 1/20. */
export const shelleySafeZone = 3 * securityParam * 20;

/** Byron epochs: 10k slots of 20 s, with a safe zone of 2k slots. */
export const byronEpochLength = 10 * securityParam;
export const byronSlotLengthMs = 20_000;
export const byronSafeZone = 2 * securityParam;

/** 45 billion ADA (maxLovelaceSupply): every lovelace is in exactly one of the ada_pots buckets. */
export const maxSupply = 45_000_000_000_000_000n;

/** The active slot coefficient f (shelley-genesis activeSlotsCoeff). */
export const activeSlotsCoefficient = 0.05;

/** Genesis delegates' votes needed for a protocol update (shelley-genesis updateQuorum). */
export const updateQuorum = 5;

/** Slots per KES period and KES evolutions before a new operational certificate (shelley-genesis). */
export const slotsPerKesPeriod = 129_600;
export const maxKesEvolutions = 62;

/** Each network's magic (shelley-genesis networkMagic): mainnet's, and preprod's 1. */
export const networkMagic = { mainnet: 764_824_073, preprod: 1 } as const;
