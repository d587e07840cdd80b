/**
 * The reward update at the boundary into `epoch`, as the demo chain generator makes it (src/domain/pool_rewards.ts),
 * from the chain database: the pot is the monetary expansion of the reserves plus the fees of epoch - 2; the
 * treasury takes its cut; the rest goes to the pools of epoch - 2 by their active stake (epoch_stake) and blocks,
 * written as leader and member reward rows spendable in `epoch`. What no one is paid goes back to the reserves.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import { type PoolEpoch, poolRewards, type RewardPot, rewardPot } from "@src/domain/pool_rewards.ts";
import { maxSupply } from "@src/domain/network_constants.ts";
import { rewardDelay } from "@src/domain/epoch_boundary.ts";
import { registeredAccounts } from "./stake_state.ts";

/** Pools and accounts are their db-sync ids (pool_hash.id, stake_address.id). */
export type DbPoolEpoch = PoolEpoch<number, number>;

/**
 * The pools with active stake in `earned`, in epoch_stake order (the generator's snapshot order): their members,
 * the blocks they made that epoch, and their latest parameters and owners (the generator's ledger pays by the
 * pool's current registration).
 */
export const readPoolEpochs = (
  sql: SqlClient,
  earned: number,
): Effect.Effect<Array<DbPoolEpoch>, SqlError> =>
  Effect.gen(function* () {
    const stake = yield* sql<{ pool: string; addr: string; amount: string }>`
      select pool_id::text as pool, addr_id::text as addr, amount::text as amount
      from epoch_stake where epoch_no = ${earned} order by id`;
    if (stake.length === 0) return [];
    const params = yield* sql<
      {
        pool: string;
        blocks: string;
        fixedCost: string;
        margin: number;
        rewardAccount: string;
        owners: string;
      }
    >`
      with pools as (select distinct pool_id from epoch_stake where epoch_no = ${earned}),
      latest as (
        select distinct on (u.hash_id) u.hash_id, u.id, u.fixed_cost, u.margin, u.reward_addr_id
        from pool_update u where u.hash_id in (select pool_id from pools)
        order by u.hash_id, u.registered_tx_id desc, u.cert_index desc),
      made as (
        select sl.pool_hash_id, count(*) as n from block b join slot_leader sl on sl.id = b.slot_leader_id
        where b.epoch_no = ${earned} and sl.pool_hash_id is not null group by sl.pool_hash_id)
      select l.hash_id::text as pool, coalesce(m.n, 0)::text as blocks, l.fixed_cost::text as "fixedCost",
             l.margin, l.reward_addr_id::text as "rewardAccount",
             coalesce((select string_agg(o.addr_id::text, ',') from pool_owner o where o.pool_update_id = l.id), '')
               as owners
      from latest l left join made m on m.pool_hash_id = l.hash_id`;
    const byPool = new Map(params.map((p) => [Number(p.pool), p]));
    const members = new Map<number, Array<[number, number]>>();
    for (const s of stake) {
      const pool = Number(s.pool);
      const list = members.get(pool) ?? [];
      list.push([Number(s.addr), Number(s.amount)]);
      members.set(pool, list);
    }
    return [...members].map(([pool, list]) => {
      const p = byPool.get(pool);
      return {
        pool,
        members: list,
        blocks: Number(p?.blocks ?? 0),
        fixedCost: Number(p?.fixedCost ?? 0),
        margin: p?.margin ?? 0,
        rewardAccount: Number(p?.rewardAccount ?? 0),
        owners: p?.owners ? p.owners.split(",").map(Number) : [],
      };
    });
  });

/** The stake_address ids of every registered credential. */
export const readRegistered = (sql: SqlClient): Effect.Effect<Set<number>, SqlError> =>
  Effect.map(
    sql<{ addr: string }>`select addr_id::text as addr from (${registeredAccounts(sql)}) r`,
    (rows) => new Set(rows.map((r) => Number(r.addr))),
  );

export interface RewardUpdate extends RewardPot {
  /** Lovelace paid to leaders and members. */
  readonly paid: number;
}

/**
 * Computes and writes the rewards earned in `epoch - 2`, unless db-sync already holds them (the demo chain writes
 * those of its tip's previous epoch ahead, as db-sync does); either way returns the pot and what was paid.
 */
export const writeRewardUpdate = (
  sql: SqlClient,
  o: { epoch: number; reserves: bigint; monetaryExpandRate: number; treasuryGrowthRate: number },
): Effect.Effect<RewardUpdate, SqlError> =>
  Effect.gen(function* () {
    const earned = o.epoch - rewardDelay;
    const [sums] = yield* sql<{ fees: string; written: string; paid: string; poolBlocks: string }>`
      select
        (select count(*) from block b join slot_leader sl on sl.id = b.slot_leader_id
          where b.epoch_no = ${earned} and sl.pool_hash_id is not null)::text as "poolBlocks",
        (select coalesce(sum(t.fee), 0) from tx t join block b on b.id = t.block_id
          where b.epoch_no = ${earned})::text as fees,
        (select count(*) from reward where earned_epoch = ${earned} and type in ('leader', 'member'))::text
          as written,
        (select coalesce(sum(amount), 0) from reward where earned_epoch = ${earned}
          and type in ('leader', 'member'))::text as paid`;
    const pot = rewardPot({
      reserves: o.reserves,
      fees: Number(sums!.fees),
      monetaryExpandRate: o.monetaryExpandRate,
      treasuryGrowthRate: o.treasuryGrowthRate,
    });
    if (Number(sums!.written) > 0) return { ...pot, paid: Number(sums!.paid) };
    // epochs the devnet skipped (no blocks) earn nothing: no performance
    if (Number(sums!.poolBlocks) === 0) return { ...pot, paid: 0 };
    const pools = yield* readPoolEpochs(sql, earned);
    const registered = yield* readRegistered(sql);
    const { rows, total } = poolRewards({
      pot: pot.pot - pot.toTreasury,
      supply: Number(maxSupply - o.reserves),
      pools,
      registered: (account) => registered.has(account),
    });
    if (rows.length > 0) {
      yield* sql`insert into reward ${
        sql.insert(rows.map((r) => ({
          addr_id: r.account,
          type: r.type,
          amount: String(r.amount),
          spendable_epoch: o.epoch,
          pool_id: r.pool,
          earned_epoch: earned,
        })))
      }`;
    }
    return { ...pot, paid: total };
  });
