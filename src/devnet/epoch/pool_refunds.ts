/**
 * Pool retirements taking effect at the boundary into `epoch`, as the demo chain generator makes them: the pool's
 * deposit goes back to its reward account (a `refund` reward row, spendable at once), or to the treasury when that
 * account is not registered. A retirement counts when it is the pool's latest and no re-registration came after it.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import { registeredAccounts } from "./stake_state.ts";
import { refundDelay } from "@src/domain/epoch_boundary.ts";

export interface PoolRefunds {
  /** Every deposit returned: leaves deposits_stake. */
  readonly refunded: bigint;
  /** The part whose reward account is not registered: goes to the treasury. */
  readonly toTreasury: bigint;
}

export const writePoolRefunds = (
  sql: SqlClient,
  o: { epoch: number; poolDeposit: bigint },
): Effect.Effect<PoolRefunds, SqlError> =>
  Effect.gen(function* () {
    const retiring = yield* sql<
      { pool: string; account: string; deposit: string | null; registered: boolean }
    >`
      with retire as (
        select distinct on (hash_id) hash_id, retiring_epoch, announced_tx_id from pool_retire
        order by hash_id, announced_tx_id desc, cert_index desc),
      latest as (
        select distinct on (u.hash_id) u.hash_id, u.registered_tx_id, u.reward_addr_id from pool_update u
        where u.hash_id in (select hash_id from retire where retiring_epoch = ${o.epoch})
        order by u.hash_id, u.registered_tx_id desc, u.cert_index desc)
      select l.hash_id::text as pool, l.reward_addr_id::text as account,
        (select d.deposit::text from pool_update d where d.hash_id = l.hash_id and d.deposit is not null
          order by d.registered_tx_id desc limit 1) as deposit,
        exists (select 1 from (${registeredAccounts(sql)}) a where a.addr_id = l.reward_addr_id) as registered
      from retire r join latest l on l.hash_id = r.hash_id
      where r.retiring_epoch = ${o.epoch} and r.announced_tx_id > l.registered_tx_id
      order by l.hash_id`;
    let refunded = 0n;
    let toTreasury = 0n;
    for (const r of retiring) {
      const deposit = r.deposit === null ? o.poolDeposit : BigInt(r.deposit);
      refunded += deposit;
      if (!r.registered) {
        toTreasury += deposit;
        continue;
      }
      yield* sql`
        insert into reward (addr_id, type, amount, spendable_epoch, pool_id, earned_epoch)
        values (${Number(r.account)}, 'refund', ${String(deposit)}, ${o.epoch}, ${Number(r.pool)}, ${
        o.epoch - refundDelay
      })`;
    }
    return { refunded, toTreasury };
  });
