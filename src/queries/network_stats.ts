/**
 * Network statistics from db-sync (shared/notes/dbsync.md §8), in three parts by cost: the tip (one index probe);
 * the pots and the epoch's active stake, which change once an epoch (the caller caches them per epoch); and the
 * transaction total, from the epoch table/view rather than counting `tx` (the caller caches it briefly).
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";

export interface TipPosition {
  readonly blockNo: number;
  readonly slotNo: number;
  readonly epochNo: number;
  readonly epochSlotNo: number;
}

export const tipPosition = (sql: SqlClient): Effect.Effect<TipPosition | undefined, SqlError> =>
  Effect.map(
    sql<{ blockNo: number; slotNo: string; epochNo: number; epochSlotNo: number }>`
      select block_no as "blockNo", slot_no::text as "slotNo", epoch_no as "epochNo", epoch_slot_no as "epochSlotNo"
      from block where block_no is not null order by id desc limit 1`,
    ([r]) => (r ? { ...r, slotNo: Number(r.slotNo) } : undefined),
  );

export interface EpochFigures {
  /** ADA outside reserves, treasury, deposits and fees at the last boundary: UTxO plus reward balances. */
  readonly circulatingSupply: string;
  readonly treasury: string;
  readonly reserves: string;
  readonly activeStake: string;
  readonly activePools: number;
  readonly activeDelegators: number;
}

export const epochFigures = (sql: SqlClient, epoch: number): Effect.Effect<EpochFigures, SqlError> =>
  Effect.map(
    sql<EpochFigures>`
      with pots as (select utxo, rewards, treasury, reserves from ada_pots order by epoch_no desc limit 1),
           stake as (select coalesce(sum(amount), 0) as total, count(distinct pool_id)::int as pools,
                            count(*) filter (where amount > 0)::int as delegators
                     from epoch_stake where epoch_no = ${epoch})
      select coalesce((select (utxo + rewards)::text from pots), '0') as "circulatingSupply",
             coalesce((select treasury::text from pots), '0') as treasury,
             coalesce((select reserves::text from pots), '0') as reserves,
             stake.total::text as "activeStake", stake.pools as "activePools", stake.delegators as "activeDelegators"
      from stake`,
    ([r]) => r!,
  );

/** All transactions: the epoch table/view's counts (finalised epochs + the current one computed by db-sync). */
export const totalTransactions = (sql: SqlClient): Effect.Effect<number, SqlError> =>
  Effect.flatMap(
    sql<{ n: string | null }>`select sum(tx_count)::text as n from epoch`,
    ([r]) =>
      r?.n != null
        ? Effect.succeed(Number(r.n))
        // epoch can be empty (insert_options disable_epoch): fall back to the blocks' counts
        : Effect.map(
          sql<{ n: string }>`select coalesce(sum(tx_count), 0)::text as n from block`,
          ([b]) => Number(b!.n),
        ),
  );
