/**
 * db-sync 13.7.2's `epoch` view answered from what is known (src/queries/epoch_progress.ts) instead of a full
 * recount: the view sums every block of every epoch without an epoch_finalized row on each read, seconds on a
 * large chain, while its rows differ from the finalized ones only in the epoch in progress. Row for row the same
 * as the view at the statement's snapshot:
 * - epoch_finalized's rows (when epoch_sync_enabled says so), as the view casts them;
 * - the kept totals (open epochs, and old ones that had no finalized row) plus the blocks written after the kept
 *   upper block, for each epoch that has no finalized row now;
 * - only while the kept upper block is still there with its hash and the finalized rows up to the kept bound are
 *   as many as when the totals were taken. Otherwise the statement fails with `staleEpochTotals` in its message
 *   (a failed cast the planner cannot fold): the caller advances the totals and runs it again. Failing instead of
 *   carrying the view as a fallback branch halves the planning, which is most of this statement's time.
 * Each part's totals merge by epoch: sums add, counts add (the parts' blocks are disjoint), times min/max.
 */
import type { EpochProgress } from "@src/queries/epoch_progress.ts";
import type { SqlBuilder } from "./sql_text.ts";

/** In the failure of a statement whose kept totals no longer hold (see above). */
export const staleEpochTotals = "kept epoch totals are stale";

/**
 * Whether a statement failed because its kept epoch totals no longer hold: PostgreSQL's message for the marker's
 * cast to int4, which no value of a request reaches (GraphQL's Int is checked as a number, bigint casts to int8).
 */
export const isStaleEpochTotals = (
  error: { readonly message: string; readonly cause?: unknown },
): boolean => {
  const marker = `for type integer: "${staleEpochTotals}"`;
  return error.message.includes(marker) ||
    (error.cause instanceof Error && error.cause.message.includes(marker));
};

const aggregates = `coalesce(sum(tx.out_sum), 0) as out_sum, coalesce(sum(tx.fee), 0) as fees,
  count(tx.id) as tx_count, count(distinct b.id) as blk_count, min(b.time) as start_time, max(b.time) as end_time`;

/** A parenthesised row source with the view's columns and types, its values as parameters of `b`. */
export const epochSource = (b: SqlBuilder, p: EpochProgress): string => {
  const upTo = `${b.param(p.upTo)}::int8`;
  const finalizedUpTo = `${b.param(p.finalizedUpTo)}::int8`;
  const holds = `(${upTo} = 0 or exists (select 1 from block where id = ${upTo} and hash = decode(${
    b.param(p.hash)
  }, 'hex'))) and (select count(*) from epoch_finalized where no <= ${finalizedUpTo}) = ${
    b.param(p.finalizedCount)
  }::int8`;
  const enabled = "(select enabled from epoch_sync_enabled where singleton = true)";
  return `(select e.* from (
  select ef.id::int8 as id, ef.out_sum::numeric as out_sum, ef.fees::numeric as fees,
         ef.tx_count::int8 as tx_count, ef.blk_count::int8 as blk_count, ef.no::int8 as no, ef.start_time,
         ef.end_time
    from epoch_finalized ef where ${enabled}
  union all
  select p.no + 1, sum(p.out_sum), sum(p.fees), sum(p.tx_count)::int8, sum(p.blk_count)::int8, p.no,
         min(p.start_time), max(p.end_time)
  from (
    select r.no, r.out_sum, r.fees, r.tx_count, r.blk_count, r.start_time, r.end_time
      from json_to_recordset(${b.param(p.rows)}::json) as r(no int8, out_sum numeric, fees numeric,
             tx_count int8, blk_count int8, start_time timestamp, end_time timestamp)
    union all
    select b.epoch_no, ${aggregates}
      from block b left join tx on tx.block_id = b.id
      where b.id > ${upTo} and b.epoch_no > ${finalizedUpTo}
      group by b.epoch_no
  ) p
  where not exists (select 1 from epoch_finalized ef where ef.no = p.no) and ${enabled}
  group by p.no
) e
where (case when ${holds} then '1' else '${staleEpochTotals}' end)::int4 = 1)`;
};
