/**
 * One block's transactions (the explorer's `/v2/explorer/{network}/block/{id}/txs`, Blockfrost's
 * `/blocks/{hash_or_number}/txs`), in block order or its reverse, a page at a time: the block by number
 * (idx_block_block_no) or hash (unique_block), then its transactions by idx_tx_block_id (an index range of one
 * block's rows, at most a few hundred, sorted by `block_index`). The total is the block's own `tx_count`, so no
 * count runs. Only real blocks (the genesis pseudo-block and Byron boundary blocks have no block number), as the
 * block endpoint.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import type * as Explorer from "@schemas/explorer.ts";

export type BlockTransaction = typeof Explorer.BlockTransaction.Type;

export interface BlockTransactionPage {
  readonly total: number;
  readonly page: number;
  readonly pageSize: number;
  readonly hasMore: boolean;
  readonly data: ReadonlyArray<BlockTransaction>;
}

interface TxRow {
  readonly hash: string;
  readonly blockIndex: number;
  readonly fee: string;
  readonly totalOutput: string;
  readonly deposit: string;
  readonly size: number;
  readonly validContract: boolean;
}

/** The page, or undefined when the network holds no such block. */
export const blockTransactions = (
  sql: SqlClient,
  id: { readonly number: number } | { readonly hash: string },
  paging: { readonly page: number; readonly limit: number; readonly order?: "asc" | "desc" },
): Effect.Effect<BlockTransactionPage | undefined, SqlError> =>
  Effect.gen(function* () {
    if ("hash" in id && !/^[0-9a-fA-F]{64}$/.test(id.hash)) return undefined;
    if ("number" in id && !(Number.isSafeInteger(id.number) && id.number >= 0 && id.number < 2 ** 31)) {
      return undefined;
    }
    const [block] = "number" in id
      ? yield* sql<{ id: string; txCount: string }>`
          select id::text, tx_count::text as "txCount" from block where block_no = ${id.number}`
      : yield* sql<{ id: string; txCount: string }>`
          select id::text, tx_count::text as "txCount" from block
          where hash = decode(${id.hash.toLowerCase()}, 'hex') and block_no is not null`;
    if (!block) return undefined;
    const page = Math.max(1, Math.trunc(paging.page));
    const limit = Math.max(1, Math.trunc(paging.limit));
    const total = Number(block.txCount);
    const rows = (page - 1) * limit >= total ? [] : yield* sql<TxRow>`
      select encode(t.hash, 'hex') as hash, t.block_index as "blockIndex", t.fee::text as fee,
             t.out_sum::text as "totalOutput", coalesce(t.deposit, 0)::text as deposit, t.size,
             t.valid_contract as "validContract"
      from tx t
      where t.block_id = ${block.id}
      order by t.block_index ${paging.order === "desc" ? sql`desc` : sql``}
      limit ${limit} offset ${(page - 1) * limit}`;
    return {
      total,
      page,
      pageSize: limit,
      hasMore: page * limit < total,
      data: rows.map((r) => ({ ...r, blockIndex: Number(r.blockIndex), size: Number(r.size) })),
    };
  });
