/**
 * What db-sync 13.7.2's `epoch` view sums on every read, kept between reads: per open epoch (after the newest
 * `epoch_finalized` row) the totals of its blocks up to a known block, so a read adds only the blocks written
 * since (src/graphql/epoch_source.ts). One statement, one snapshot: the upper block, the finalized bound and the
 * totals agree. The next advance adds the blocks after the previous upper block while that block is still there
 * with the same hash (db-sync writes a block with its transactions in one transaction and a rollback deletes the
 * blocks after a point, so the blocks up to it are unchanged) and no finalized row went away; otherwise it sums
 * the open epochs afresh (their blocks through idx_block_epoch_no). Epochs up to the finalized bound without a
 * finalized row (none, normally) are summed on every advance, so a read never sums an old epoch itself.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";

export interface EpochProgress {
  /** block.id the totals reach ("0": none yet), and its hash (hex). */
  readonly upTo: string;
  readonly hash: string;
  /**
   * The newest finalized epoch when the totals were taken ("-1": none); they cover the epochs after it, and
   * those up to it that had no finalized row.
   */
  readonly finalizedUpTo: string;
  /** How many finalized rows were up to that bound: a read checks none went away or came since. */
  readonly finalizedCount: string;
  /** JSON array of {no, out_sum, fees, tx_count, blk_count, start_time, end_time}, kept as text: exact sums. */
  readonly rows: string;
}

export const noEpochProgress: EpochProgress = {
  upTo: "0",
  hash: "",
  finalizedUpTo: "-1",
  finalizedCount: "0",
  rows: "[]",
};

/** Whether `epoch` is db-sync's 13.7.2 view over epoch_finalized and epoch_current (before 13.7.2: a table). */
export const epochIsFinalizedView = (sql: SqlClient): Effect.Effect<boolean, SqlError> =>
  Effect.map(
    sql<{ view: boolean }>`
      select coalesce((select relkind = 'v' from pg_class where oid = to_regclass('epoch')), false)
         and to_regclass('epoch_current') is not null and to_regclass('epoch_finalized') is not null
         and to_regclass('epoch_sync_enabled') is not null as view`,
    ([r]) => r?.view === true,
  );

/** The open epochs' totals at this statement's snapshot, from `previous` when it still holds. */
export const advanceEpochProgress = (
  sql: SqlClient,
  previous: EpochProgress,
): Effect.Effect<EpochProgress, SqlError> =>
  Effect.map(
    sql<EpochProgress>`
      with fin as (select coalesce(max(no), -1)::int8 as m, count(*)::int8 as n from epoch_finalized),
      tip as (select id, hash from block order by id desc limit 1),
      kept as (
        select (${previous.upTo}::int8 = 0
                or exists (select 1 from block where id = ${previous.upTo}::int8
                           and hash = decode(${previous.hash}, 'hex')))
           and (select m from fin) >= ${previous.finalizedUpTo}::int8 as v),
      parts as (
        select r.no, r.out_sum, r.fees, r.tx_count, r.blk_count, r.start_time, r.end_time
          from json_to_recordset(${previous.rows}::json) as r(no int8, out_sum numeric, fees numeric,
                 tx_count int8, blk_count int8, start_time timestamp, end_time timestamp)
          where (select v from kept) and r.no > (select m from fin)
        union all
        select b.epoch_no, coalesce(sum(tx.out_sum), 0), coalesce(sum(tx.fee), 0), count(tx.id),
               count(distinct b.id), min(b.time), max(b.time)
          from block b left join tx on tx.block_id = b.id
          where (select v from kept) and b.id > ${previous.upTo}::int8 and b.epoch_no > (select m from fin)
          group by b.epoch_no
        union all
        select b.epoch_no, coalesce(sum(tx.out_sum), 0), coalesce(sum(tx.fee), 0), count(tx.id),
               count(distinct b.id), min(b.time), max(b.time)
          from block b left join tx on tx.block_id = b.id
          where not (select v from kept) and b.epoch_no > (select m from fin)
          group by b.epoch_no
        union all
        select g.no, a.out_sum, a.fees, a.tx_count, a.blk_count, a.start_time, a.end_time
          from generate_series((select min(epoch_no) from block)::int8, (select m from fin)) g(no)
          cross join lateral (select coalesce(sum(tx.out_sum), 0) as out_sum, coalesce(sum(tx.fee), 0) as fees,
                                     count(tx.id) as tx_count, count(distinct b.id) as blk_count,
                                     min(b.time) as start_time, max(b.time) as end_time
                              from block b left join tx on tx.block_id = b.id where b.epoch_no = g.no) a
          where not exists (select 1 from epoch_finalized ef where ef.no = g.no) and a.blk_count > 0)
      select coalesce((select id from tip), 0)::text as "upTo", coalesce((select encode(hash, 'hex') from tip), '')
               as hash,
             (select m from fin)::text as "finalizedUpTo", (select n from fin)::text as "finalizedCount",
             coalesce((select json_agg(json_build_object('no', p.no, 'out_sum', p.out_sum, 'fees', p.fees,
                         'tx_count', p.tx_count, 'blk_count', p.blk_count, 'start_time', p.start_time,
                         'end_time', p.end_time) order by p.no)
                       from (select no, sum(out_sum) as out_sum, sum(fees) as fees, sum(tx_count) as tx_count,
                                    sum(blk_count) as blk_count, min(start_time) as start_time,
                                    max(end_time) as end_time
                             from parts group by no) p), '[]')::text as rows`,
    ([r]) => r!,
  );
