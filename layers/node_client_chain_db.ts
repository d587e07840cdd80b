/**
 * The NodeClient without a node: ledger queries answered from the chain database (src/jsonrpc/ledger_queries.ts);
 * transactions cannot be evaluated or submitted, and the error says so (a later devnet implementation takes them).
 */
import { Effect } from "effect";
import type { Network } from "@schemas/network.ts";
import type { RpcError } from "@src/jsonrpc/frame.ts";
import { ledgerQueries } from "@src/jsonrpc/ledger_queries.ts";
import type { QueryServices } from "@src/jsonrpc/method.ts";
import type { NodeClient } from "./node_client.ts";

const upstreamVariable = (network: Network) => `${network.toUpperCase()}_OGMIOS_URL`;

/** Where the chain database came from: on the embedded demo chain the devnet could take transactions. */
export type ChainOrigin = "embedded demo chain" | "db-sync database";

export const noNode = (network: Network, what: string, origin: ChainOrigin): RpcError => ({
  code: -32000,
  message: `No node is configured for ${network}: transactions cannot be ${what} here. ` +
    `Set ${upstreamVariable(network)} to relay them to an Ogmios` +
    (origin === "embedded demo chain"
      ? ", or set DEVNET_BLOCK_SECONDS above 0 (it is 0) to run the local devnet."
      : "."),
});

export const chainDbNodeClient = (
  network: Network,
  origin: ChainOrigin,
): Effect.Effect<NodeClient, never, QueryServices> =>
  Effect.map(Effect.context<QueryServices>(), (context) => ({
    description: "the chain database (no Ogmios upstream)",
    query: (method, params) => {
      const program = Object.hasOwn(ledgerQueries, method) ? ledgerQueries[method] : undefined;
      return program ? Effect.provide(program(network, params), context) : Effect.fail({
        code: -32601,
        message:
          `Method not available: ${method} cannot be answered from the chain database (db-sync does not ` +
          `keep what it needs). Set ${upstreamVariable(network)} to relay it to an Ogmios.`,
      });
    },
    evaluateTransaction: () => Effect.fail(noNode(network, "evaluated", origin)),
    submitTransaction: () => Effect.fail(noNode(network, "submitted", origin)),
  }));
