/**
 * The stake state as the chain database holds it, as SQL the epoch boundary builds on: the stake credentials
 * registered now, every reward account's spendable balance, and the unspent lovelace of each stake credential.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import { Effect } from "effect";

/** `addr_id, tx_id` of every registered stake credential (tx_id: its live registration). */
export const registeredAccounts = (sql: SqlClient) =>
  sql`
    select r.addr_id, r.tx_id from (
      select distinct on (addr_id) addr_id, tx_id, cert_index from stake_registration
      order by addr_id, tx_id desc, cert_index desc) r
    where not exists (select 1 from stake_deregistration x where x.addr_id = r.addr_id
      and (x.tx_id, x.cert_index) > (r.tx_id, r.cert_index))`;

/**
 * `addr_id, amount` of every reward account: rewards and refunds spendable in `epoch`, less withdrawals (the
 * balance the withdrawal rules read, see ledger_view.ts).
 */
export const rewardBalances = (sql: SqlClient, epoch: number) =>
  sql`
    select addr_id, sum(amount) as amount from (
      select addr_id, amount from reward where spendable_epoch <= ${epoch}
      union all select addr_id, amount from reward_rest where spendable_epoch <= ${epoch}
      union all select addr_id, -amount from withdrawal) b
    group by addr_id`;

/**
 * Fills `devnet_unspent` (addr_id, amount): the unspent lovelace per stake credential, addr_id null for outputs
 * carrying none. A temporary table for the boundaries written with one block, between which no transaction
 * comes: the outputs are read once however many epochs the chain crosses.
 */
export const createUnspentTable = (sql: SqlClient) =>
  Effect.andThen(
    sql`drop table if exists devnet_unspent`,
    sql`
      create temp table devnet_unspent on commit drop as
      select o.stake_address_id as addr_id, sum(o.value) as amount from tx_out o
      where not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)
      group by o.stake_address_id`,
  );
