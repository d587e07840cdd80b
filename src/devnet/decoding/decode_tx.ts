/**
 * Decoding a submitted transaction with CML: hex → bytes → Conway transaction. Anything CML cannot read is
 * Ogmios' -32602 deserialisation failure, never an exception. The transaction id is the hash of the body's
 * original bytes (CML keeps the submitted encoding).
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { hex } from "@scure/base";
import { Either } from "effect";
import { deserialisationFailure, type OgmiosError } from "../errors.ts";

export interface DecodedTransaction {
  readonly tx: CML.Transaction;
  readonly bytes: Uint8Array;
  readonly id: string;
}

const hexPattern = /^(?:[0-9a-fA-F]{2})+$/;

export const decodeTransaction = (cborHex: string): Either.Either<DecodedTransaction, OgmiosError> => {
  if (typeof cborHex !== "string" || !hexPattern.test(cborHex)) {
    return Either.left(deserialisationFailure("the transaction is not base16-encoded CBOR"));
  }
  const bytes = hex.decode(cborHex.toLowerCase());
  try {
    const tx = CML.Transaction.from_cbor_bytes(bytes);
    const id = CML.hash_transaction(tx.body()).to_hex();
    return Either.right({ tx, bytes, id });
  } catch (cause) {
    return Either.left(deserialisationFailure(cause instanceof Error ? cause.message : String(cause)));
  }
};
