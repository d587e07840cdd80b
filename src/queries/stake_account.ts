/**
 * A stake account for `/api/public/stake-account` (shared/notes/dbsync.md §3), in one statement of index lookups
 * on the account's stake_address id:
 * - registered: the latest stake_registration is later than the latest stake_deregistration, by
 *   (tx_id, cert_index).
 * - delegatedPoolId: the pool (bech32) of the latest delegation, when the account is registered, the delegation
 *   was made since the latest registration, and it is not dangling: a retirement of that pool that took effect
 *   after the delegation's epoch (and by now) voids it, unless a pool_update after the retirement certificate
 *   reached the chain before the retirement epoch (which cancels the retirement). A re-registration after the
 *   pool retired does not bring old delegations back (Koios' is_dangling_delegation rule).
 * - rewardsBalance: reward + reward_rest rows spendable by the current epoch (db-sync writes later ones early)
 *   minus all withdrawals.
 * - totalStake: the account's unspent outputs (tx_out.stake_address_id) plus rewardsBalance. Summing them reads
 *   every output ever paid to the account (a stake key behind a very busy address, 100k+ outputs: about a
 *   second), so a caller that keeps the stake address's summary passes its balance as `utxoBalance`.
 * An unknown account is a valid answer: not registered, no pool, zero balances.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import type { Fragment } from "@effect/sql/Statement";
import type { SpentTracking } from "@src/dbsync/detect.ts";
import { unspentOutput } from "./address.ts";
import { currentDrep } from "./reward_accounts.ts";
import { historyColumns, type StakeAccountHistory } from "./stake_account_history.ts";

export interface StakeAccount {
  readonly registered: boolean;
  readonly delegatedPoolId: string | null;
  readonly rewardsBalance: string;
  readonly totalStake: string;
}

interface StateRow {
  readonly registered: boolean;
  readonly poolId: string | null;
  readonly rewards: string;
  readonly utxo: string;
}

/** The account's state, with `extra` columns over the same CTEs and `extraJoin` after `registered r`. */
const statement = <Row extends StateRow>(
  sql: SqlClient,
  hashRawHex: string,
  spentTracking: SpentTracking | undefined,
  utxoBalance: string | undefined,
  extra: Fragment,
  extraJoin: Fragment,
) =>
  sql<Row>`/* prepared */
      with tip as (select epoch_no from block where block_no is not null order by id desc limit 1),
           acct as (select id from stake_address where hash_raw = decode(${hashRawHex}, 'hex')),
           reg as (select r.tx_id, r.cert_index from stake_registration r where r.addr_id = (select id from acct)
                   order by r.tx_id desc, r.cert_index desc limit 1),
           dereg as (select d.tx_id, d.cert_index from stake_deregistration d where d.addr_id = (select id from acct)
                     order by d.tx_id desc, d.cert_index desc limit 1),
           registered as (
             select reg.tx_id is not null
                      and (dereg.tx_id is null or (reg.tx_id, reg.cert_index) > (dereg.tx_id, dereg.cert_index)) as yes,
                    reg.tx_id, reg.cert_index, dereg.tx_id as dereg_tx
             from (select 1) one left join reg on true left join dereg on true),
           deleg as (select d.pool_hash_id, d.tx_id, d.cert_index,
                            (select b.epoch_no from tx t join block b on b.id = t.block_id where t.id = d.tx_id) as epoch_no
                     from delegation d where d.addr_id = (select id from acct)
                     order by d.tx_id desc, d.cert_index desc limit 1)
      select r.yes as registered,
             (select p.view from deleg d join pool_hash p on p.id = d.pool_hash_id
              where r.yes and (d.tx_id, d.cert_index) >= (r.tx_id, r.cert_index)
                and not exists (
                  select 1 from pool_retire pr
                  where pr.hash_id = d.pool_hash_id
                    and pr.retiring_epoch <= (select epoch_no from tip) and pr.retiring_epoch > d.epoch_no
                    and not exists (
                      select 1 from pool_update pu join tx t on t.id = pu.registered_tx_id
                      join block b on b.id = t.block_id
                      where pu.hash_id = pr.hash_id
                        and (pu.registered_tx_id, pu.cert_index) > (pr.announced_tx_id, pr.cert_index)
                        and b.epoch_no < pr.retiring_epoch))) as "poolId",
             ((select coalesce(sum(w.amount), 0) from reward w
               where w.addr_id = (select id from acct) and w.spendable_epoch <= (select epoch_no from tip))
              + (select coalesce(sum(w.amount), 0) from reward_rest w
                 where w.addr_id = (select id from acct) and w.spendable_epoch <= (select epoch_no from tip))
              - (select coalesce(sum(w.amount), 0) from withdrawal w where w.addr_id = (select id from acct)))::text
               as rewards,
             ${
    utxoBalance === undefined
      ? sql`(select coalesce(sum(o.value), 0) from tx_out o
             where o.stake_address_id = (select id from acct) and ${unspentOutput(sql, spentTracking)})::text`
      : sql`${utxoBalance}::text`
  } as utxo ${extra}
      from registered r ${extraJoin}`;

const toState = (row: StateRow | undefined): StakeAccount => {
  const rewards = row?.rewards ?? "0";
  return {
    registered: row?.registered ?? false,
    delegatedPoolId: row?.poolId ?? null,
    rewardsBalance: rewards,
    totalStake: (BigInt(row?.utxo ?? "0") + BigInt(rewards)).toString(),
  };
};

/**
 * `hashRawHex`: the 29-byte reward address (header + credential) as hex. `spentTracking` as detected
 * (DbSyncInfo.spentTracking); without it the unspent test checks both tx_in and consumed_by_tx_id.
 */
export const stakeAccount = (
  sql: SqlClient,
  hashRawHex: string,
  spentTracking?: SpentTracking,
  utxoBalance?: string,
): Effect.Effect<StakeAccount, SqlError> =>
  Effect.map(
    statement<StateRow>(sql, hashRawHex, spentTracking, utxoBalance, sql``, sql``),
    ([row]) => toState(row),
  );

/** The state, the history (./stake_account_history.ts) and the ledger's DRep (./reward_accounts.ts) at once. */
export interface StakeAccountInFull {
  readonly state: StakeAccount;
  /** Undefined when db-sync has no stake_address row for the account (never seen on chain). */
  readonly history: StakeAccountHistory | undefined;
  /** The DRep of a registered account (the ledger's rule: registered when the newest registration's transaction
   * follows the newest deregistration's); null when none. */
  readonly drep: { readonly raw: string | null; readonly view: string; readonly hasScript: boolean } | null;
}

interface FullRow extends StateRow, StakeAccountHistory {
  readonly known: boolean;
  readonly drepRaw: string | null;
  readonly drepView: string | null;
  readonly drepHasScript: boolean | null;
}

/** Blockfrost's account in one statement (one round trip instead of three). */
export const stakeAccountInFull = (
  sql: SqlClient,
  hashRawHex: string,
  spentTracking?: SpentTracking,
  utxoBalance?: string,
): Effect.Effect<StakeAccountInFull, SqlError> =>
  Effect.map(
    statement<FullRow>(
      sql,
      hashRawHex,
      spentTracking,
      utxoBalance,
      sql`, exists (select 1 from acct) as known, ${historyColumns(sql)},
          v.raw as "drepRaw", v.view as "drepView", v.has_script as "drepHasScript"`,
      sql`left join lateral (${currentDrep(sql, sql`(select id from acct)`, sql`r.tx_id`)}) v
            on r.tx_id is not null and (r.dereg_tx is null or r.tx_id > r.dereg_tx)`,
    ),
    ([row]) => ({
      state: toState(row),
      history: row?.known
        ? {
          activeEpoch: row.activeEpoch,
          rewardsSum: row.rewardsSum,
          withdrawalsSum: row.withdrawalsSum,
          reservesSum: row.reservesSum,
          treasurySum: row.treasurySum,
        }
        : undefined,
      drep: row?.drepView == null
        ? null
        : { raw: row.drepRaw, view: row.drepView, hasScript: row.drepHasScript ?? false },
    }),
  );
