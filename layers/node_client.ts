/**
 * `NodeClients`: per network, what stands in for cardano-node behind the JSON-RPC endpoint. It answers the ledger
 * queries and takes transactions to evaluate and submit. Implementations:
 *   node_client_ogmios.ts    an Ogmios upstream (`<NETWORK>_OGMIOS_URL`): requests relayed, errors passed through
 *   node_client_chain_db.ts  the chain database (no upstream configured): queries from db-sync; evaluation and
 *                            submission refused with a clear error, since no node is there to take them
 * A local devnet (src/devnet/) can slot in as a third implementation by providing this interface.
 * Chain sync is not part of it: it is always served from the chain database (src/jsonrpc/chain_sync.ts).
 */
import { Context, Effect, Layer, Option } from "effect";
import { type Network, networks } from "@schemas/network.ts";
import type { RpcError } from "@src/jsonrpc/frame.ts";
import type { QueryServices } from "@src/jsonrpc/method.ts";
import { AppConfig } from "./config.ts";
import { chainDbNodeClient } from "./node_client_chain_db.ts";
import { ogmiosNodeClient } from "./node_client_ogmios.ts";

/** A transaction as Ogmios takes it: `{transaction: {cbor}}`, plus `additionalUtxo` for evaluation. */
export interface TransactionParams {
  readonly cbor: string;
  /** Evaluation only: outputs (Ogmios Utxo shape) to assume besides the ledger's. */
  readonly additionalUtxo?: ReadonlyArray<unknown>;
}

export interface NodeClient {
  /** Logged at start and shown in errors: "ogmios ws://…", "chain database". */
  readonly description: string;
  /** A ledger-state or network query by its Ogmios name (one of src/jsonrpc/ledger_queries.ts). */
  readonly query: (
    method: string,
    params: Readonly<Record<string, unknown>> | undefined,
  ) => Effect.Effect<unknown, RpcError>;
  /** Ogmios' `evaluateTransaction` result (execution units per redeemer), or its error. */
  readonly evaluateTransaction: (tx: TransactionParams) => Effect.Effect<unknown, RpcError>;
  /** Ogmios' `submitTransaction` result (`{transaction: {id}}`), or its error. */
  readonly submitTransaction: (tx: TransactionParams) => Effect.Effect<unknown, RpcError>;
}

export class NodeClients extends Context.Tag("NodeClients")<NodeClients, {
  readonly get: (network: Network) => NodeClient;
}>() {}

/** One node client per network: the Ogmios upstream when its URL is set, the chain database otherwise. */
export const NodeClientsLive: Layer.Layer<NodeClients, never, AppConfig | QueryServices> = Layer.scoped(
  NodeClients,
  Effect.gen(function* () {
    const config = yield* AppConfig;
    const clients = new Map<Network, NodeClient>();
    for (const network of networks) {
      const url = config.networks[network].ogmiosUrl;
      const client = Option.isSome(url)
        ? yield* ogmiosNodeClient(network, url.value)
        : yield* chainDbNodeClient(network);
      yield* Effect.logInfo(`${network}: JSON-RPC node client is ${client.description}`);
      clients.set(network, client);
    }
    return { get: (network: Network) => clients.get(network)! };
  }),
);
