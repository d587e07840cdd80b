/**
 * Blocks for the explorer (shared/notes/dbsync.md §7), only real blocks (the genesis pseudo-block and Byron
 * boundary blocks have no block number): the newest first by block number (idx_block_block_no, a range of
 * `limit` numbers), one by number (idx_block_block_no) or hash (unique_block). The pool from the slot leader
 * (primary keys) with its ticker and name from its newest off-chain metadata (unique_off_chain_pool_data leads
 * with pool_id); null when the slot leader is no pool (Byron, genesis delegates) or no metadata was fetched.
 * Fee and output totals: one pass over the block's transactions (idx_tx_block_id). One block also carries its
 * producer's details and its neighbours (`BlockDetail`): the slot leader's description, VRF key and operational
 * certificate, the previous block (primary key) and the next (idx_block_previous_id).
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import type * as Explorer from "@schemas/explorer.ts";

export type Block = typeof Explorer.Block.Type;
export type BlockSummary = typeof Explorer.BlockSummary.Type;

/** One block with what only a single block's answers carry (the explorer's encoder leaves these out). */
export interface BlockDetail extends Block {
  /** The slot leader as db-sync describes it (a pool's hash, a genesis delegate, "Genesis slot leader"). */
  readonly slotLeaderDescription: string | null;
  /** Bech32 `vrf_vk1…`. */
  readonly vrfKey: string | null;
  readonly opCert: string | null;
  readonly opCertCounter: string | null;
  readonly previousHash: string | null;
  readonly nextHash: string | null;
}

export interface BlockPage {
  readonly total: number;
  readonly page: number;
  readonly pageSize: number;
  readonly hasMore: boolean;
  readonly data: ReadonlyArray<BlockSummary>;
}

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

const blockSelect = (sql: SqlClient, detail = false) =>
  sql`/* prepared */ select b.block_no as "blockNo", encode(b.hash, 'hex') as hash, b.slot_no::text as "slotNo",
             b.epoch_no as "epochNo", b.epoch_slot_no as "epochSlotNo", b.time, b.tx_count::text as "txCount",
             b.size, p.view as "poolId", meta.ticker_name as "poolTicker", meta.json ->> 'name' as "poolName",
             sums.output as "totalOutput", sums.fees as "totalFees" ${detail ? detailColumns(sql) : sql``}
      from block b
      left join lateral (select p.id, p.view from slot_leader l join pool_hash p on p.id = l.pool_hash_id
                         where l.id = b.slot_leader_id limit 1) p on true
      left join lateral (select o.ticker_name, o.json from off_chain_pool_data o where o.pool_id = p.id
                         order by o.id desc limit 1) meta on true
      cross join lateral (select coalesce(sum(t.out_sum), 0)::text as output, coalesce(sum(t.fee), 0)::text as fees
                          from tx t where t.block_id = b.id) sums`;

interface DetailRow extends BlockRow {
  readonly slotLeaderDescription: string | null;
  readonly vrfKey: string | null;
  readonly opCert: string | null;
  readonly opCertCounter: string | null;
  readonly previousHash: string | null;
  readonly nextHash: string | null;
}

/** The columns only one block's answers carry; the slot leader row and the neighbours by index probes. */
const detailColumns = (sql: SqlClient) =>
  sql`, (select l.description from slot_leader l where l.id = b.slot_leader_id) as "slotLeaderDescription",
      b.vrf_key as "vrfKey", encode(b.op_cert, 'hex') as "opCert", b.op_cert_counter::text as "opCertCounter",
      (select encode(p.hash, 'hex') from block p where p.id = b.previous_id) as "previousHash",
      (select encode(n.hash, 'hex') from block n where n.previous_id = b.id order by n.id limit 1) as "nextHash"`;

const toBlock = (r: BlockRow): Block => ({
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

const toSummary = (r: BlockRow): BlockSummary => ({
  blockNo: r.blockNo,
  hash: r.hash,
  slotNo: Number(r.slotNo),
  time: r.time.toISOString(),
  txCount: Number(r.txCount),
  size: r.size,
  poolTicker: r.poolTicker,
  totalFees: r.totalFees,
  totalOutput: r.totalOutput,
});

/**
 * The newest blocks, `limit` per page (page 1 = the tip). Block numbers are consecutive, so a page is a range
 * of numbers and `total` is tip - first + 1 (two index probes, no count). `atMostBlockNo` caps the tip (the one
 * the service reports, which may trail this database: replicas, or instances sharing one tip).
 */
export const recentBlocks = (
  sql: SqlClient,
  paging: { readonly page: number; readonly limit: number; readonly atMostBlockNo?: number | undefined },
): Effect.Effect<BlockPage, SqlError> =>
  Effect.gen(function* () {
    const page = Math.max(1, Math.trunc(paging.page));
    const limit = Math.max(1, Math.trunc(paging.limit));
    const [range] = yield* sql<{ tip: number | null; first: number | null }>`
      select (select block_no from block where block_no is not null order by id desc limit 1) as tip,
             (select block_no from block where block_no is not null order by block_no limit 1) as first`;
    if (range?.tip == null || range.first == null) {
      return { total: 0, page, pageSize: limit, hasMore: false, data: [] };
    }
    const tip = paging.atMostBlockNo === undefined ? range.tip : Math.min(range.tip, paging.atMostBlockNo);
    const total = Math.max(0, tip - range.first + 1);
    const top = tip - (page - 1) * limit;
    const bottom = Math.max(range.first, top - limit + 1);
    const rows = top < range.first ? [] : yield* sql<BlockRow>`
      ${blockSelect(sql)}
      where b.block_no between ${bottom} and ${top}
      order by b.block_no desc`;
    return { total, page, pageSize: limit, hasMore: page * limit < total, data: rows.map(toSummary) };
  });

/** One block by number or by hash (64 hex characters); undefined when there is none. */
export const blockById = (
  sql: SqlClient,
  id: { readonly number: number } | { readonly hash: string },
): Effect.Effect<BlockDetail | undefined, SqlError> => {
  if ("hash" in id && !/^[0-9a-fA-F]{64}$/.test(id.hash)) return Effect.succeed(undefined);
  if ("number" in id && !(Number.isSafeInteger(id.number) && id.number >= 0 && id.number < 2 ** 31)) {
    return Effect.succeed(undefined);
  }
  return Effect.map(
    "number" in id
      ? sql<DetailRow>`${blockSelect(sql, true)} where b.block_no = ${id.number}`
      : sql<DetailRow>`${blockSelect(sql, true)}
                       where b.hash = decode(${id.hash.toLowerCase()}, 'hex') and b.block_no is not null`,
    ([r]) =>
      r
        ? {
          ...toBlock(r),
          slotLeaderDescription: r.slotLeaderDescription,
          vrfKey: r.vrfKey,
          opCert: r.opCert,
          opCertCounter: r.opCertCounter,
          previousHash: r.previousHash,
          nextHash: r.nextHash,
        }
        : undefined,
  );
};
