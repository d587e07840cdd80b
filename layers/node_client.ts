/**
 * `NodeClients`: per network, what stands in for cardano-node behind the JSON-RPC endpoint. It takes
 * transactions to evaluate and submit and, when it is an Ogmios upstream, relays ledger queries. Implementations:
 *   node_client_ogmios.ts    an Ogmios upstream (`<NETWORK>_OGMIOS_URL`): requests relayed, errors passed through
 *   node_client_none.ts      no node (no upstream configured): evaluation and submission refused with a clear
 *                            error, since no node is there to take them
 *   node_client_devnet.ts    the living devnet (src/devnet/) on an embedded demo chain without upstream, unless
 *                            DEVNET_BLOCK_SECONDS is 0: transactions to the engine, which writes a block into the
 *                            chain database every DEVNET_BLOCK_SECONDS
 * Without an upstream, ledger queries are answered by the programs of src/programs/ledger/ from the chain
 * database (src/jsonrpc/dispatch.ts chooses). Chain sync is not part of it: it is always served from the chain
 * database (src/jsonrpc/chain_sync.ts). Which one each network gets: node_clients_live.ts.
 */
import { Context, type Effect } from "effect";
import type { Network } from "@schemas/network.ts";
import type { NodeNotConfigured, NodeRejected, NodeUnavailable } from "@src/domain/errors.ts";
import type { DevnetStats } from "@src/devnet/devnet.ts";

/** A transaction as Ogmios takes it: `{transaction: {cbor}}`, plus `additionalUtxo` for evaluation. */
export interface TransactionParams {
  readonly cbor: string;
  /** Evaluation only: outputs (Ogmios Utxo shape) to assume besides the ledger's. */
  readonly additionalUtxo?: ReadonlyArray<unknown>;
}

/** How taking a transaction fails: the node's own refusal, no node at all, or the node failing. */
export type NodeFailure = NodeRejected | NodeNotConfigured | NodeUnavailable;

export interface NodeClient {
  /** Logged at start and shown in errors: "ogmios ws://…", "chain database". */
  readonly description: string;
  /**
   * An Ogmios upstream only: a ledger-state or network query sent on by its Ogmios name, answered with the
   * upstream's result or its error.
   */
  readonly relay?: (
    method: string,
    params: Readonly<Record<string, unknown>> | undefined,
  ) => Effect.Effect<unknown, NodeRejected>;
  /** Ogmios' `evaluateTransaction` result (execution units per redeemer), or its error. */
  readonly evaluateTransaction: (tx: TransactionParams) => Effect.Effect<unknown, NodeFailure>;
  /** Ogmios' `submitTransaction` result (`{transaction: {id}}`), or its error. */
  readonly submitTransaction: (tx: TransactionParams) => Effect.Effect<unknown, NodeFailure>;
  /** The devnet's mempool and block production, for the metrics (the devnet client only). */
  readonly devnet?: () => DevnetStats;
}

export class NodeClients extends Context.Tag("NodeClients")<NodeClients, {
  readonly get: (network: Network) => NodeClient;
}>() {}
