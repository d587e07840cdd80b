/**
 * A transaction's confirmation state: its block (by `unique_tx` on the hash, then the block's primary key) and
 * the tip's block number for the confirmation count. Genesis transactions sit in the genesis pseudo-block, which
 * has no block number.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";

export interface TxConfirmation {
  readonly blockNo: number | null;
  readonly blockTime: Date;
  readonly fee: string;
  readonly tipBlockNo: number | null;
}

export const txConfirmation = (
  sql: SqlClient,
  hash: string,
): Effect.Effect<TxConfirmation | undefined, SqlError> =>
  Effect.map(
    sql<TxConfirmation>`
      select b.block_no as "blockNo", b.time as "blockTime", t.fee::text as fee,
             (select block_no from block where block_no is not null order by id desc limit 1) as "tipBlockNo"
      from tx t join block b on b.id = t.block_id
      where t.hash = decode(${hash}, 'hex')`,
    (rows) => rows[0],
  );
