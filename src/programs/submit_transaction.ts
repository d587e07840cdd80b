/**
 * Submitting a serialised transaction to the network's node client (layers/node_client.ts: an Ogmios upstream,
 * the devnet, or none): the transaction's id as the node gives it, or the node's refusal unchanged.
 */
import { hex } from "@scure/base";
import { Effect } from "effect";
import { NodeClients } from "@layers/node_client.ts";
import type { Network } from "@schemas/network.ts";
import { NodeUnavailable } from "@src/domain/errors.ts";

const idOf = (result: unknown): string | undefined => {
  const id = (result as { transaction?: { id?: unknown } } | null)?.transaction?.id;
  return typeof id === "string" ? id : undefined;
};

export const submitTransaction = Effect.fnUntraced(
  function* (network: Network, cbor: Uint8Array) {
    const node = (yield* NodeClients).get(network);
    const result = yield* node.submitTransaction({ cbor: hex.encode(cbor) });
    const id = idOf(result);
    if (id === undefined) {
      return yield* new NodeUnavailable({
        message: `The ${network} node answered a submission without an id`,
      });
    }
    return id;
  },
);
