/**
 * The ledger-state and network queries answered from db-sync, by their exact, case-sensitive Ogmios names; each
 * lives in `methods/`. The chain-database NodeClient answers from this table; an Ogmios upstream relays the same
 * names.
 */
import type { MethodProgram } from "./method.ts";
import { protocolParametersMethod } from "./methods/protocol_parameters.ts";
import { utxo } from "./methods/utxo.ts";
import { stakePools } from "./methods/stake_pools.ts";
import { eraStart, summaries } from "./methods/eras.ts";
import { liveStakeDistribution } from "./methods/stake_distribution.ts";
import { rewardAccountSummaries } from "./methods/reward_accounts.ts";
import { blockHeight } from "./methods/block_height.ts";
import { epoch } from "./methods/epoch.ts";
import { startTime } from "./methods/start_time.ts";
import { tipPoint } from "./methods/tip.ts";

export const ledgerQueries: Readonly<Record<string, MethodProgram>> = {
  "queryNetwork/tip": tipPoint,
  "queryLedgerState/tip": tipPoint,
  "queryNetwork/blockHeight": blockHeight,
  "queryNetwork/startTime": startTime,
  "queryLedgerState/epoch": epoch,
  "queryLedgerState/protocolParameters": protocolParametersMethod,
  "queryLedgerState/utxo": utxo,
  "queryLedgerState/stakePools": stakePools,
  "queryLedgerState/eraSummaries": summaries,
  "queryLedgerState/eraStart": eraStart,
  "queryLedgerState/liveStakeDistribution": liveStakeDistribution,
  "queryLedgerState/rewardAccountSummaries": rewardAccountSummaries,
};

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

/** The filters that make a UTxO query bounded: without one it would mean the whole UTxO set, on any node. */
export const unboundedUtxoQuery = (method: string, params: Readonly<Record<string, unknown>> | undefined) =>
  method === "queryLedgerState/utxo" && params?.addresses === undefined &&
  params?.outputReferences === undefined;
