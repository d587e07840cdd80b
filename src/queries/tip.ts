/**
 * The chain tip: the newest block with a block number (the genesis pseudo-block and Byron boundary blocks have
 * none; shared/notes/dbsync.md §1). Backward scan of the primary key: one index probe, whatever the chain's size.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";

export interface Tip {
  readonly blockNo: number;
  readonly slotNo: number;
  readonly epochNo: number;
  readonly hash: string;
  readonly time: Date;
}

export const tip = (sql: SqlClient): Effect.Effect<Tip | undefined, SqlError> =>
  Effect.map(
    sql<{ blockNo: number; slotNo: string; epochNo: number; hash: string; time: Date }>`
      select block_no as "blockNo", slot_no::text as "slotNo", epoch_no as "epochNo",
             encode(hash, 'hex') as hash, time
      from block where block_no is not null order by id desc limit 1`,
    ([row]) => (row ? { ...row, slotNo: Number(row.slotNo) } : undefined),
  );

/** When the chain began (db-sync's `meta.start_time`, the genesis system start). */
export const systemStart = (sql: SqlClient): Effect.Effect<Date | undefined, SqlError> =>
  Effect.map(
    sql<{ start: Date }>`select start_time as start from meta order by id limit 1`,
    ([row]) => row?.start,
  );
