/**
 * The chain's tip as ChainTips last polled it (at most a second old): what `queryNetwork/tip`,
 * `queryLedgerState/tip` and `queryNetwork/blockHeight` answer without an upstream. Clients call these as a
 * heartbeat, and one poll serves them all. Undefined on an empty chain.
 */
import { Effect } from "effect";
import { ChainTips } from "@layers/chain_tips.ts";
import type { Network } from "@schemas/network.ts";

export const ledgerTip = (network: Network) => Effect.map(ChainTips, (tips) => tips.get(network).current());
