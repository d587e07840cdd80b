/**
 * A transaction's CBOR as db-sync keeps it in `tx_cbor` (written only with its `tx_cbor` option on; off by
 * default): the transaction by `unique_tx`, its bytes by idx_tx_cbor_tx_id. Three answers: no such transaction
 * (undefined), a transaction whose bytes db-sync did not keep (`cbor` null), or its bytes in hex.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";

const hashPattern = /^[0-9a-fA-F]{64}$/;

export const transactionCbor = (
  sql: SqlClient,
  hash: string,
): Effect.Effect<{ readonly cbor: string | null } | undefined, SqlError> =>
  hashPattern.test(hash)
    ? Effect.map(
      sql<{ cbor: string | null }>`
        select (select encode(c.bytes, 'hex') from tx_cbor c where c.tx_id = t.id order by c.id limit 1) as cbor
        from tx t where t.hash = decode(${hash.toLowerCase()}, 'hex')`,
      (rows) => rows[0],
    )
    : Effect.succeed(undefined);
