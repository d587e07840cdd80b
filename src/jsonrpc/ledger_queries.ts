/**
 * The Ogmios method names this service knows, by their exact, case-sensitive names: every stateless query an
 * upstream answers, and the methods never served (with why). Which queries the chain database answers is
 * `dispatch.ts`'s table.
 */
/** Every stateless query Ogmios v6.14 serves (ogmios.json): an upstream answers them all. */
export const ogmiosQueries: ReadonlySet<string> = new Set([
  ...[
    "constitution",
    "constitutionalCommittee",
    "delegateRepresentatives",
    "epoch",
    "eraStart",
    "eraSummaries",
    "governanceProposals",
    "liveStakeDistribution",
    "nonces",
    "operationalCertificates",
    "projectedRewards",
    "protocolParameters",
    "rewardAccountSummaries",
    "rewardsProvenance",
    "stakePools",
    "stakePoolsPerformances",
    "tip",
    "treasuryAndReserves",
    "utxo",
  ].map((q) => `queryLedgerState/${q}`),
  ...["blockHeight", "genesisConfiguration", "startTime", "tip"].map((q) => `queryNetwork/${q}`),
]);

const stateful = "needs per-connection node state, which this service does not keep";

/** Ogmios methods this service never serves, even with an upstream, and why. */
export const unservedOgmiosMethods: ReadonlyMap<string, string> = new Map([
  ...["acquireLedgerState", "releaseLedgerState"].map((m) =>
    [m, `${stateful}; query the current ledger state directly instead`] as const
  ),
  ...["acquireMempool", "nextTransaction", "hasTransaction", "sizeOfMempool", "releaseMempool"].map((m) =>
    [m, stateful] as const
  ),
  ["queryLedgerState/dump", "would send the whole ledger state"],
]);
