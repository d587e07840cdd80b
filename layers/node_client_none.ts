/**
 * The NodeClient without a node (no Ogmios upstream, no devnet): transactions cannot be evaluated or submitted,
 * and the error says how to get a node. Ledger queries are answered from the chain database by the programs of
 * src/programs/ledger/, without going through a node client.
 */
import { Effect } from "effect";
import type { Network } from "@schemas/network.ts";
import { NodeNotConfigured } from "@src/domain/errors.ts";
import type { NodeClient } from "./node_client.ts";

/** `devnetPossible`: on the embedded demo chain, where the devnet could take transactions. */
export const noNodeClient = (network: Network, devnetPossible: boolean): NodeClient => ({
  description: "the chain database (no Ogmios upstream)",
  evaluateTransaction: () =>
    Effect.fail(new NodeNotConfigured({ network, action: "evaluated", devnetPossible })),
  submitTransaction: () =>
    Effect.fail(new NodeNotConfigured({ network, action: "submitted", devnetPossible })),
});
