/**
 * Evaluating a transaction's scripts on a network's node (layers/node_client.ts: an Ogmios upstream or the
 * devnet): the one program behind JSON-RPC's `evaluateTransaction` and Blockfrost's `/utils/txs/evaluate`. The
 * answer is Ogmios v6's (`[{validator: {purpose, index}, budget: {memory, cpu}}]`) or the node's own error;
 * each dialect writes it in its own shape.
 */
import { Effect } from "effect";
import { NodeClients } from "@layers/node_client.ts";
import type { Network } from "@schemas/network.ts";

export interface TransactionToEvaluate {
  /** The serialised transaction, in hex (either case). */
  readonly cbor: string;
  /** Outputs (Ogmios v6 Utxo entries) to assume besides the ledger's: outputs of transactions not yet on chain. */
  readonly additionalUtxo?: ReadonlyArray<unknown>;
}

export const evaluateTransaction = Effect.fnUntraced(
  function* (network: Network, tx: TransactionToEvaluate) {
    const node = (yield* NodeClients).get(network);
    return yield* node.evaluateTransaction({
      cbor: tx.cbor.toLowerCase(),
      ...(tx.additionalUtxo ? { additionalUtxo: tx.additionalUtxo } : {}),
    });
  },
);
