/**
 * `NodeClients`: per network, what stands in for cardano-node behind the JSON-RPC endpoint. It answers the ledger
 * queries and takes transactions to evaluate and submit. Implementations:
 *   node_client_ogmios.ts    an Ogmios upstream (`<NETWORK>_OGMIOS_URL`): requests relayed, errors passed through
 *   node_client_chain_db.ts  the chain database (no upstream configured): queries from db-sync; evaluation and
 *                            submission refused with a clear error, since no node is there to take them
 *   node_client_devnet.ts    the living devnet (src/devnet/) on an embedded demo chain without upstream, unless
 *                            DEVNET_BLOCK_SECONDS is 0: queries from the chain database, transactions to the
 *                            engine, which writes a block there every DEVNET_BLOCK_SECONDS
 * Chain sync is not part of it: it is always served from the chain database (src/jsonrpc/chain_sync.ts).
 */
import type { SqlError } from "@effect/sql/SqlError";
import { Context, Effect, Layer, Option } from "effect";
import { type Network, networks } from "@schemas/network.ts";
import type { RpcError } from "@src/jsonrpc/frame.ts";
import type { QueryServices } from "@src/jsonrpc/method.ts";
import type { DevnetStats } from "@src/devnet/devnet.ts";
import { AppConfig } from "./config.ts";
import { ChainDatabases } from "./chain_db.ts";
import { chainDbNodeClient } from "./node_client_chain_db.ts";
import { phase } from "./startup_phase.ts";
import { devnetNodeClient } from "./node_client_devnet.ts";
import { ogmiosNodeClient, type OgmiosUnreachable } from "./node_client_ogmios.ts";

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
  /** The devnet's mempool and block production, for the metrics (the devnet client only). */
  readonly devnet?: () => DevnetStats;
}

export class NodeClients extends Context.Tag("NodeClients")<NodeClients, {
  readonly get: (network: Network) => NodeClient;
}>() {}

/**
 * One node client per network: the Ogmios upstream when its URL is set; otherwise the devnet on the embedded
 * demo chain (only there: a PostgreSQL database is db-sync's to write, or at least not ours) unless
 * DEVNET_BLOCK_SECONDS is 0; otherwise the chain database.
 */
export const NodeClientsLive: Layer.Layer<
  NodeClients,
  SqlError | OgmiosUnreachable,
  AppConfig | QueryServices
> = Layer.scoped(
  NodeClients,
  Effect.gen(function* () {
    const config = yield* AppConfig;
    const chains = yield* ChainDatabases;
    const clients = new Map<Network, NodeClient>();
    for (const network of networks) {
      const url = config.networks[network].ogmiosUrl;
      const chain = chains.get(network);
      const client = Option.isSome(url)
        ? yield* ogmiosNodeClient(network, url.value)
        : chain.backend === "pglite" && chain.demoChain && config.devnetBlockSeconds > 0
        ? yield* phase(
          `${network} devnet: start (wallets funded and the chain caught up to the clock)`,
          () => devnetNodeClient(chain, { dataDir: config.dataDir, blockSeconds: config.devnetBlockSeconds }),
          { network },
        )
        : yield* chainDbNodeClient(
          network,
          chain.backend === "pglite" && chain.demoChain ? "embedded demo chain" : "db-sync database",
        );
      yield* Effect.logInfo(`${network}: JSON-RPC node client is ${client.description}`);
      clients.set(network, client);
    }
    return { get: (network: Network) => clients.get(network)! };
  }),
);
