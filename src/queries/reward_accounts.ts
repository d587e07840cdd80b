/**
 * Reward accounts as the ledger sees them, from db-sync (shared/notes/dbsync.md §3): registered when the latest
 * registration follows the latest deregistration; the pool and DRep of the latest delegations made since then
 * (a pool retired since, or a DRep retired since, voids them); spendable rewards (reward and reward_rest due by
 * the current epoch) minus withdrawals; the deposit paid. Each account is a handful of index lookups by addr_id.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import type { Fragment } from "@effect/sql/Statement";
import type { Effect } from "effect";

export interface RewardAccountRow {
  readonly hashRaw: string;
  readonly registered: boolean;
  readonly poolId: string | null;
  readonly drepRaw: string | null;
  readonly drepView: string | null;
  readonly drepHasScript: boolean | null;
  readonly rewards: string;
  readonly deposit: string | null;
}

export const rewardAccounts = (
  sql: SqlClient,
  hashesRaw: ReadonlyArray<string>,
): Effect.Effect<ReadonlyArray<RewardAccountRow>, SqlError> =>
  sql<RewardAccountRow>`/* prepared */
    with tip as (select epoch_no from block where block_no is not null order by id desc limit 1),
         wanted as (select s.* from stake_address s
                    where s.hash_raw in (select decode(h, 'hex') from unnest(${hashesRaw as Array<
    string
  >}::text[]) as h)),
         states as (
           select w.id, w.hash_raw,
             (select r.tx_id from stake_registration r where r.addr_id = w.id order by r.tx_id desc, r.cert_index desc limit 1) as reg_tx,
             (select r.deposit from stake_registration r where r.addr_id = w.id order by r.tx_id desc, r.cert_index desc limit 1) as deposit,
             (select d.tx_id from stake_deregistration d where d.addr_id = w.id order by d.tx_id desc, d.cert_index desc limit 1) as dereg_tx
           from wanted w)
    select encode(s.hash_raw, 'hex') as "hashRaw",
           (s.reg_tx is not null and (s.dereg_tx is null or s.reg_tx > s.dereg_tx)) as registered,
           (select p.view from delegation d join pool_hash p on p.id = d.pool_hash_id
            where d.addr_id = s.id and d.tx_id >= s.reg_tx
              and not exists (select 1 from pool_retire r where r.hash_id = d.pool_hash_id
                              and r.retiring_epoch <= (select epoch_no from tip) and r.announced_tx_id > d.tx_id
                              and not exists (select 1 from pool_update u where u.hash_id = r.hash_id
                                              and u.registered_tx_id > r.announced_tx_id))
            order by d.tx_id desc, d.cert_index desc limit 1) as "poolId",
           v.raw as "drepRaw", v.view as "drepView", v.has_script as "drepHasScript",
           ((select coalesce(sum(amount), 0) from reward where addr_id = s.id
               and spendable_epoch <= (select epoch_no from tip))
            + (select coalesce(sum(amount), 0) from reward_rest where addr_id = s.id
               and spendable_epoch <= (select epoch_no from tip))
            - (select coalesce(sum(amount), 0) from withdrawal where addr_id = s.id))::text as rewards,
           coalesce(s.deposit, (select key_deposit from epoch_param order by epoch_no desc limit 1))::text as deposit
    from states s
    left join lateral (${currentDrep(sql, sql`s.id`, sql`s.reg_tx`)}) v on true`;

/**
 * The DRep of the account `addrId`'s latest vote delegation made since its registration `regTx` (unless that
 * DRep retired since), as `raw` (hex), `view`, `has_script`; for a lateral join (also ./stake_account.ts).
 */
export const currentDrep = (sql: SqlClient, addrId: Fragment, regTx: Fragment) =>
  sql`select encode(h.raw, 'hex') as raw, h.view, h.has_script
      from delegation_vote dv join drep_hash h on h.id = dv.drep_hash_id
      where dv.addr_id = ${addrId} and dv.tx_id >= ${regTx}
        and (h.raw is null or not exists (select 1 from drep_registration g where g.drep_hash_id = h.id
                                          and g.deposit < 0 and g.tx_id > dv.tx_id))
      order by dv.tx_id desc, dv.cert_index desc limit 1`;
