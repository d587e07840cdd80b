/**
 * The transactions that touch an address (Blockfrost's `/addresses/{address}/transactions`): those paying it an
 * output and those spending one of its outputs, in chain order (tx.id: block, then index in the block), a page
 * at a time, optionally between two block positions. It reads every output ever paid to the address (the
 * indexes of ./address.ts: payment credential and address, or the address's hash index) and, for each, the
 * transaction spending it: in proportion to the address's history, like the summary's full read.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import type { SpentTracking } from "@src/dbsync/detect.ts";
import { outputsOf, selectionOf, spendingJoin, spendingTx } from "./address.ts";

export interface AddressTransaction {
  readonly txHash: string;
  /** The transaction's index in its block. */
  readonly blockIndex: number;
  readonly blockNo: number;
  readonly blockTime: string;
}

/** A block height and, optionally, an index within the block. */
export interface BlockPosition {
  readonly blockNo: number;
  readonly index?: number;
}

export interface AddressTransactionsOptions {
  readonly paymentCredHex: string | null;
  readonly spentTracking: SpentTracking;
  /** 1-based. */
  readonly page: number;
  readonly limit: number;
  readonly order: "asc" | "desc";
  /** Inclusive bounds. */
  readonly from?: BlockPosition;
  readonly to?: BlockPosition;
}

interface Row {
  readonly txHash: string;
  readonly blockIndex: number;
  readonly blockNo: number;
  readonly blockTime: Date;
}

export const addressTransactions = (
  sql: SqlClient,
  address: string,
  options: AddressTransactionsOptions,
): Effect.Effect<ReadonlyArray<AddressTransaction>, SqlError> => {
  const selection = selectionOf(address, options.paymentCredHex);
  if (!selection) return Effect.succeed([]);
  const bound = (p: BlockPosition | undefined, op: "from" | "to") => {
    if (!p) return sql`true`;
    if (p.index === undefined) {
      return op === "from" ? sql`b.block_no >= ${p.blockNo}` : sql`b.block_no <= ${p.blockNo}`;
    }
    return op === "from"
      ? sql`(b.block_no, t.block_index) >= (${p.blockNo}, ${p.index})`
      : sql`(b.block_no, t.block_index) <= (${p.blockNo}, ${p.index})`;
  };
  const spender = spendingTx(sql, options.spentTracking);
  return Effect.map(
    sql<Row>`
      with touching as (
        select o.tx_id as id from tx_out o where ${outputsOf(sql, selection)}
        union
        select ${spender} from tx_out o ${spendingJoin(sql, options.spentTracking)}
        where ${outputsOf(sql, selection)} and ${spender} is not null)
      select encode(t.hash, 'hex') as "txHash", t.block_index as "blockIndex", b.block_no as "blockNo",
             b.time as "blockTime"
      from touching x join tx t on t.id = x.id join block b on b.id = t.block_id
      where ${bound(options.from, "from")} and ${bound(options.to, "to")}
      order by t.id ${options.order === "desc" ? sql`desc` : sql``}
      limit ${options.limit} offset ${(options.page - 1) * options.limit}`,
    (rows) =>
      rows.map((r) => ({
        txHash: r.txHash,
        blockIndex: Number(r.blockIndex),
        blockNo: Number(r.blockNo),
        blockTime: r.blockTime.toISOString(),
      })),
  );
};
