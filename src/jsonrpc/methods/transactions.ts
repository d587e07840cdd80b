/**
 * `submitTransaction` and `evaluateTransaction` (`{transaction: {cbor}}`, and to evaluate an optional
 * `additionalUtxo` array), taken to the network's node client: an Ogmios upstream, the devnet, or none (which
 * says how to get one).
 */
import { Effect, Schema } from "effect";
import { NodeClients } from "@layers/node_client.ts";
import { evaluateTransaction as evaluate } from "@src/programs/evaluate_transaction.ts";
import type { MethodProgram } from "../method.ts";
import { paramsDecoder, required, withMessage } from "../params.ts";

const notCbor = "'transaction.cbor' must be the serialised transaction in hex (base16)";
const transaction = required(
  withMessage(
    Schema.Struct({ cbor: Schema.String.pipe(Schema.pattern(/^(?:[0-9a-fA-F]{2})+$/)) }),
    () => notCbor,
  ),
  notCbor,
);

const submitParams = paramsDecoder(Schema.Struct({
  transaction,
  additionalUtxo: Schema.optional(
    Schema.Never.annotations({ message: () => "'additionalUtxo' is for evaluation only" }),
  ),
}));

const evaluateParams = paramsDecoder(Schema.Struct({
  transaction,
  additionalUtxo: Schema.optional(
    Schema.Array(Schema.Unknown).annotations({ message: () => "'additionalUtxo' must be an array of UTxO" }),
  ),
}));

export const submitTransaction: MethodProgram = (network, params) =>
  Effect.gen(function* () {
    const p = yield* submitParams(params);
    const node = (yield* NodeClients).get(network);
    return yield* node.submitTransaction({ cbor: p.transaction.cbor.toLowerCase() });
  });

export const evaluateTransaction: MethodProgram = (network, params) =>
  Effect.gen(function* () {
    const p = yield* evaluateParams(params);
    return yield* evaluate(network, {
      cbor: p.transaction.cbor,
      ...(p.additionalUtxo ? { additionalUtxo: p.additionalUtxo } : {}),
    });
  });
