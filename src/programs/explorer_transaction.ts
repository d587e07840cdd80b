/**
 * `GET /v2/explorer/{network}/tx/{hash}`: a transaction in full (src/queries/transaction.ts), spent-ness of its
 * outputs read in the database's spent-tracking mode; the same until the next block (./at_tip.ts).
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { transactionByHash } from "@src/queries/transaction.ts";
import { atTip } from "./at_tip.ts";
import { fromSql, NotFoundError } from "@src/domain/errors.ts";

export const transaction = Effect.fnUntraced(function* (network: Network, hash: string) {
  const db = (yield* ChainDatabases).get(network);
  const found = yield* atTip(
    network,
    `tx:${hash}`,
    transactionByHash(db.sql, hash, db.dbSync.spentTracking).pipe(Effect.mapError(fromSql(network))),
  );
  if (!found) return yield* new NotFoundError({ message: `Transaction ${hash} not found on ${network}` });
  return found;
});
