/**
 * Blocks for the explorer (shared/notes/dbsync.md §7): the newest first by the primary key, or one by number
 * (idx_block_block_no) or hash (unique_block); the pool from slot_leader and its ticker and name from the newest
 * off-chain metadata; fee and output totals over the block's transactions (idx_tx_block_id).
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";

interface BlockRow {
  readonly blockNo: number;
  readonly hash: string;
  readonly slotNo: string;
  readonly epochNo: number;
  readonly epochSlotNo: number;
  readonly time: Date;
  readonly txCount: string;
  readonly size: number;
  readonly poolId: string | null;
  readonly poolTicker: string | null;
  readonly poolName: string | null;
  readonly totalOutput: string;
  readonly totalFees: string;
}

const blockColumns = (sql: SqlClient) =>
  sql`b.block_no as "blockNo", encode(b.hash, 'hex') as hash, b.slot_no::text as "slotNo", b.epoch_no as "epochNo",
      b.epoch_slot_no as "epochSlotNo", b.time, b.tx_count::text as "txCount", b.size, p.view as "poolId",
      meta.ticker_name as "poolTicker", meta.json ->> 'name' as "poolName",
      (select coalesce(sum(t.out_sum), 0)::text from tx t where t.block_id = b.id) as "totalOutput",
      (select coalesce(sum(t.fee), 0)::text from tx t where t.block_id = b.id) as "totalFees"`;

const joins = (sql: SqlClient) =>
  sql`join slot_leader l on l.id = b.slot_leader_id
      left join pool_hash p on p.id = l.pool_hash_id
      left join lateral (select o.ticker_name, o.json from off_chain_pool_data o where o.pool_id = p.id
                         order by o.id desc limit 1) meta on true`;

const toBlock = (r: BlockRow) => ({
  blockNo: r.blockNo,
  hash: r.hash,
  slotNo: Number(r.slotNo),
  epochNo: r.epochNo,
  epochSlotNo: r.epochSlotNo,
  time: r.time.toISOString(),
  txCount: Number(r.txCount),
  size: r.size,
  poolId: r.poolId,
  poolTicker: r.poolTicker,
  poolName: r.poolName,
  totalOutput: r.totalOutput,
  totalFees: r.totalFees,
});

export type BlockDetail = ReturnType<typeof toBlock>;

/** The newest blocks, a page at a time; `total` is the tip's block number + 1 (block numbers start at 0). */
export const recentBlocks = (sql: SqlClient, page: { readonly page: number; readonly limit: number }) =>
  Effect.gen(function* () {
    const [tip] = yield* sql<{ blockNo: number }>`
      select block_no as "blockNo" from block where block_no is not null order by id desc limit 1`;
    const total = tip ? tip.blockNo + 1 : 0;
    const top = (tip?.blockNo ?? -1) - (page.page - 1) * page.limit;
    const rows = top < 0 ? [] : yield* sql<BlockRow>`
      select ${blockColumns(sql)} from block b ${joins(sql)}
      where b.block_no <= ${top} and b.block_no > ${top - page.limit}
      order by b.block_no desc`;
    const data = rows.map((r) => {
      const b = toBlock(r);
      return {
        blockNo: b.blockNo,
        hash: b.hash,
        slotNo: b.slotNo,
        time: b.time,
        txCount: b.txCount,
        size: b.size,
        poolTicker: b.poolTicker,
        totalFees: b.totalFees,
        totalOutput: b.totalOutput,
      };
    });
    return { total, page: page.page, pageSize: page.limit, hasMore: page.page * page.limit < total, data };
  });

export const blockById = (
  sql: SqlClient,
  id: { readonly number: number } | { readonly hash: string },
): Effect.Effect<BlockDetail | undefined, SqlError> =>
  Effect.map(
    "number" in id
      ? sql<BlockRow>`select ${blockColumns(sql)} from block b ${joins(sql)} where b.block_no = ${id.number}`
      : sql<BlockRow>`select ${blockColumns(sql)} from block b ${joins(sql)}
                      where b.hash = decode(${id.hash}, 'hex') and b.block_no is not null`,
    (rows) => (rows[0] ? toBlock(rows[0]) : undefined),
  );
