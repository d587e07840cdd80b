/**
 * Scripts and datums by hash (src/queries/scripts.ts): what reference-script and datum lookups of transaction
 * builders read. A hash the chain has not seen on this network is a NotFoundError. Answers are immutable once on
 * chain, but a rollback can remove one, so they are cached per tip (./at_tip.ts) like other chain content.
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { fromSql, NotFoundError } from "@src/domain/errors.ts";
import { datumByHash, scriptByHash } from "@src/queries/scripts.ts";
import { atTip } from "./at_tip.ts";

/** `hashHex`: 28 bytes, hex (either case). */
export const script = Effect.fnUntraced(function* (network: Network, hashHex: string) {
  const hash = hashHex.toLowerCase();
  const db = (yield* ChainDatabases).get(network);
  const found = yield* atTip(network, `script:${hash}`, scriptByHash(db.sql, hash)).pipe(
    Effect.mapError(fromSql(network)),
  );
  if (!found) return yield* new NotFoundError({ message: `No script ${hash} on ${network}` });
  return found;
});

/** `hashHex`: 32 bytes, hex (either case). */
export const datum = Effect.fnUntraced(function* (network: Network, hashHex: string) {
  const hash = hashHex.toLowerCase();
  const db = (yield* ChainDatabases).get(network);
  const found = yield* atTip(network, `datum:${hash}`, datumByHash(db.sql, hash)).pipe(
    Effect.mapError(fromSql(network)),
  );
  if (!found) return yield* new NotFoundError({ message: `No datum ${hash} on ${network}` });
  return found;
});
