/**
 * One epoch's figures as db-sync keeps them in `epoch` (a table before 13.7.2; from then a view over
 * `epoch_finalized` and the epoch in progress, aggregated from its blocks and their transactions): its block and
 * transaction counts, output and fee totals, and its first and last block's times. Undefined when db-sync keeps
 * none (`disable_epoch`) or the epoch has no block yet.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";

export interface EpochSummary {
  readonly epoch: number;
  readonly blockCount: number;
  readonly txCount: number;
  /** Lovelace, decimal. */
  readonly output: string;
  readonly fees: string;
  readonly firstBlockTime: Date;
  readonly lastBlockTime: Date;
}

export const epochSummary = (
  sql: SqlClient,
  epoch: number,
): Effect.Effect<EpochSummary | undefined, SqlError> =>
  Effect.map(
    sql<
      {
        epoch: number;
        blockCount: string;
        txCount: string;
        output: string;
        fees: string;
        firstBlockTime: Date;
        lastBlockTime: Date;
      }
    >`
      select no::int as epoch, blk_count::text as "blockCount", tx_count::text as "txCount",
             out_sum::text as output, fees::text as fees, start_time as "firstBlockTime",
             end_time as "lastBlockTime"
      from epoch where no = ${epoch}`,
    ([r]) => (r ? { ...r, blockCount: Number(r.blockCount), txCount: Number(r.txCount) } : undefined),
  );
