/**
 * A transaction with its UTxO-level detail (src/queries/transaction.ts: every input and output with their flags,
 * redeemers, MIR certificates), and its CBOR where db-sync kept it (src/queries/transaction_cbor.ts); the same
 * until the next block (./at_tip.ts). Malformed hashes are the caller's to refuse; an unknown one is not found.
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { transactionDetailByHash } from "@src/queries/transaction.ts";
import { transactionCbor } from "@src/queries/transaction_cbor.ts";
import { fromSql, NotFoundError } from "@src/domain/errors.ts";
import { atTip } from "./at_tip.ts";

const notFound = (network: Network, hash: string) =>
  new NotFoundError({ message: `Transaction ${hash} not found on ${network}` });

export const transactionDetail = Effect.fnUntraced(function* (network: Network, hash: string) {
  const db = (yield* ChainDatabases).get(network);
  const found = yield* atTip(
    network,
    `txdetail:${hash}`,
    transactionDetailByHash(db.sql, hash, db.dbSync.spentTracking).pipe(Effect.mapError(fromSql(network))),
  );
  if (!found) return yield* notFound(network, hash);
  return found;
});

/** The transaction's CBOR in hex; not found as well when db-sync did not keep it (its `tx_cbor` option off). */
export const transactionCborOf = Effect.fnUntraced(function* (network: Network, hash: string) {
  const db = (yield* ChainDatabases).get(network);
  const found = yield* transactionCbor(db.sql, hash).pipe(Effect.mapError(fromSql(network)));
  if (!found) return yield* notFound(network, hash);
  if (found.cbor === null) {
    return yield* new NotFoundError({
      message:
        `The ${network} chain database keeps no CBOR for transaction ${hash} (db-sync's tx_cbor option is off)`,
    });
  }
  return found.cbor;
});
