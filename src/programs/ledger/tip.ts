/**
 * The chain's tip as ChainTips last polled it (at most a second old): what `queryNetwork/tip`,
 * `queryLedgerState/tip` and `queryNetwork/blockHeight` answer without an upstream. Clients call these as a
 * heartbeat, and one poll serves them all. Undefined on an empty chain.
 */
import { Context, Effect } from "effect";
import { ChainTips } from "@layers/chain_tips.ts";
import type { Network } from "@schemas/network.ts";
import type { PointRow } from "@src/queries/chain_blocks.ts";

export type LedgerTip = PointRow | undefined;

/** The same from the services as they stand: no I/O, so a caller may answer without a fiber. */
export const ledgerTipOf = (services: Context.Context<ChainTips>, network: Network): LedgerTip =>
  Context.get(services, ChainTips).get(network).current();

export const ledgerTip = (network: Network) => Effect.map(ChainTips, (tips) => tips.get(network).current());
