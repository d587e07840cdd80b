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

export const noNode = (network: Network, what: string): RpcError => ({
  code: -32000,
  message: `No node is configured for ${network}: transactions cannot be ${what} here. ` +
    `Set ${upstreamVariable(network)} to relay them to an Ogmios.`,
});

export const chainDbNodeClient = (network: Network): Effect.Effect<NodeClient, never, QueryServices> =>
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
    evaluateTransaction: () => Effect.fail(noNode(network, "evaluated")),
    submitTransaction: () => Effect.fail(noNode(network, "submitted")),
  }));
