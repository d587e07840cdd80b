/**
 * Network statistics from db-sync (shared/notes/dbsync.md §8), in three parts by cost:
 * - the tip (`tipPosition`): one backward probe of block's primary key;
 * - what changes once an epoch (`epochFigures`): the latest ada_pots row (one row per epoch) and the epoch's
 *   stake distribution (idx_epoch_stake_epoch_no: one range of the current epoch's rows, ~1.3 M on mainnet, the
 *   same for every request of the epoch: the caller caches it per epoch);
 * - the transaction total (`totalTransactions`): never `count(*) from tx`; the finished epochs' counts from
 *   db-sync's epoch bookkeeping plus the blocks of the epochs after them (idx_block_epoch_no), so the work is one
 *   epoch's blocks (~21,600) whatever the chain's length.
 * Decisions:
 * - circulatingSupply = ada_pots.utxo + ada_pots.rewards of the latest boundary: the ADA held by users (UTxO and
 *   reward balances; Blockfrost's definition), from the snapshot db-sync takes at each epoch boundary, so it is
 *   one row read. It trails the live figure by up to an epoch; Koios's `circulation` is ada_pots.utxo alone.
 * - totalTransactions counts transactions of real blocks: the genesis distribution (db-sync's pseudo-block
 *   without a block number or epoch) is not counted, as in db-sync's own epoch counts.
 * - the newest stake snapshot (`liveStakeEpoch`): next epoch's distribution once db-sync has completed it
 *   (epoch_stake_progress: the ledger's "mark" snapshot), else the current epoch's (as src/queries/pool.ts reads a
 *   pool's live stake).
 * - scriptLockedSupply: the unspent outputs at script addresses, one pass over tx_out (no index serves
 *   address_has_script): seconds on a big database, so the caller caches it for long.
 * - activePools = pools in the current epoch's stake distribution (distinct epoch_stake.pool_id);
 *   activeDelegators = its rows with a positive amount (zero rows exist in DBs older than 13.7.0.3).
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import type * as Explorer from "@schemas/explorer.ts";
import { epochLength } from "@src/domain/network_constants.ts";
import type { SpentTracking } from "@src/dbsync/detect.ts";
import { unspentOutput } from "./address.ts";

export type NetworkStats = typeof Explorer.NetworkStats.Type;

export interface TipPosition {
  readonly blockNo: number;
  readonly slotNo: number;
  readonly epochNo: number;
  readonly epochSlotNo: number;
}

/**
 * The newest block, or the newest at or below `atMostBlockNo`: the tip the service reports when the database is
 * given as several URLs (replicas), which a member ahead of the others must not overtake.
 */
export const tipPosition = (
  sql: SqlClient,
  options: { readonly atMostBlockNo?: number | undefined } = {},
): Effect.Effect<TipPosition | undefined, SqlError> =>
  Effect.map(
    sql<{ blockNo: number; slotNo: string; epochNo: number; epochSlotNo: number }>`
      select block_no as "blockNo", slot_no::text as "slotNo", epoch_no as "epochNo", epoch_slot_no as "epochSlotNo"
      from block where block_no is not null${
      options.atMostBlockNo === undefined ? sql`` : sql` and block_no <= ${options.atMostBlockNo}`
    } order by id desc limit 1`,
    ([r]) => (r ? { ...r, slotNo: Number(r.slotNo) } : undefined),
  );

export interface EpochFigures {
  /** ADA held by users at the last boundary: UTxO plus reward balances (ada_pots.utxo + rewards). */
  readonly circulatingSupply: string;
  readonly treasury: string;
  readonly reserves: string;
  readonly activeStake: string;
  readonly activePools: number;
  readonly activeDelegators: number;
}

/**
 * The pots of the latest boundary (ada_pots gets one row per epoch boundary, in chain order, so the newest id is
 * the latest epoch: a backward probe of the primary key) and the stake distribution active in `epoch` ("0"/0
 * when absent).
 */
export const epochFigures = (sql: SqlClient, epoch: number): Effect.Effect<EpochFigures, SqlError> =>
  Effect.map(
    sql<EpochFigures>`
      with pots as (select utxo, rewards, treasury, reserves from ada_pots order by id desc limit 1),
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

/**
 * All transactions of real blocks. The epochs before the tip's epoch from db-sync's epoch bookkeeping
 * (`epoch_finalized` from 13.7.2, where `epoch` became a view whose open part aggregates tx; the `epoch` table
 * before), trusted only when they are exactly epochs 0..n without a gap (the table is empty with
 * `disable_epoch`); the blocks after them summed from block.tx_count through idx_block_epoch_no. Without usable
 * epoch rows that sum covers every block (one scan of block: the fallback, not the rule).
 */
export const totalTransactions = (sql: SqlClient): Effect.Effect<number, SqlError> =>
  Effect.gen(function* () {
    const [state] = yield* sql<{ epochNo: number | null; finalized: boolean }>`
      select (select epoch_no from block where block_no is not null order by id desc limit 1) as "epochNo",
             to_regclass('epoch_finalized') is not null as finalized`;
    const current = state?.epochNo;
    if (current == null) return 0;
    const [done] = state!.finalized
      ? yield* sql<{ n: string; epochs: number; last: number | null }>`
          select coalesce(sum(tx_count), 0)::text as n, count(*)::int as epochs, max(no)::int as last
          from epoch_finalized where no < ${current}`
      : yield* sql<{ n: string; epochs: number; last: number | null }>`
          select coalesce(sum(tx_count), 0)::text as n, count(*)::int as epochs, max(no)::int as last
          from epoch where no < ${current}`;
    const trusted = done !== undefined && done.last !== null && done.epochs === done.last + 1;
    const last = trusted ? done.last! : -1;
    const [rest] = yield* sql<{ n: string }>`
      select coalesce(sum(tx_count), 0)::text as n from block where epoch_no > ${last} and block_no is not null`;
    return (trusted ? Number(done.n) : 0) + Number(rest?.n ?? 0);
  });

/** Percent of the epoch's slots passed, two decimals, 0 to 100. */
export const epochProgress = (epochSlotNo: number): number =>
  Math.min(100, Math.max(0, Math.round((epochSlotNo / epochLength) * 10_000) / 100));

/** The whole NetworkStats resource, uncached (the caller caches); undefined before the first block. */
export const networkStats = (sql: SqlClient): Effect.Effect<NetworkStats | undefined, SqlError> =>
  Effect.gen(function* () {
    const tip = yield* tipPosition(sql);
    if (!tip) return undefined;
    const [figures, transactions] = yield* Effect.all(
      [epochFigures(sql, tip.epochNo), totalTransactions(sql)],
      { concurrency: "unbounded" },
    );
    return {
      blockHeight: tip.blockNo,
      slotNo: tip.slotNo,
      epochNo: tip.epochNo,
      epochProgress: epochProgress(tip.epochSlotNo),
      totalTransactions: transactions,
      circulatingSupply: figures.circulatingSupply,
      treasury: figures.treasury,
      reserves: figures.reserves,
      activeStake: figures.activeStake,
      activePools: figures.activePools,
      activeDelegators: figures.activeDelegators,
    } satisfies NetworkStats;
  });

/** The epoch whose stake distribution is the newest complete one: `tipEpoch + 1` once written, else `tipEpoch`. */
export const liveStakeEpoch = (sql: SqlClient, tipEpoch: number): Effect.Effect<number, SqlError> =>
  Effect.map(
    sql<{ completed: boolean }>`
      select exists (select 1 from epoch_stake_progress p where p.epoch_no = ${tipEpoch + 1} and p.completed)
        as completed`,
    ([r]) => (r?.completed ? tipEpoch + 1 : tipEpoch),
  );

/** Lovelace in unspent outputs at script addresses (decimal). */
export const scriptLockedSupply = (
  sql: SqlClient,
  spentTracking: SpentTracking | undefined,
): Effect.Effect<string, SqlError> =>
  Effect.map(
    sql<{ locked: string }>`
      select coalesce(sum(o.value), 0)::text as locked from tx_out o
      where o.address_has_script and ${unspentOutput(sql, spentTracking)}`,
    ([r]) => r?.locked ?? "0",
  );
