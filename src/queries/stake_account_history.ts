/**
 * What a stake account has received and withdrawn over its life, and when it last registered or deregistered
 * (Blockfrost's account content; src/queries/stake_account.ts holds its current state). Each figure is an index
 * lookup by addr_id:
 * - rewardsSum: reward rows other than pool deposit refunds, plus reward_rest (instant rewards from the reserves
 *   and the treasury, proposal deposit refunds), spendable by the current epoch (db-sync writes later ones early);
 * - withdrawalsSum: every withdrawal;
 * - reservesSum / treasurySum: the MIR certificates paying the account from the reserves / the treasury;
 * - activeEpoch: the epoch of the latest stake_registration or stake_deregistration (null when neither exists).
 * An account db-sync has no stake_address row for (never seen on chain) is undefined.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";

export interface StakeAccountHistory {
  readonly activeEpoch: number | null;
  readonly rewardsSum: string;
  readonly withdrawalsSum: string;
  readonly reservesSum: string;
  readonly treasurySum: string;
}

/**
 * The history's columns over the CTEs `acct` (the account's stake_address id) and `tip` (the tip's epoch), for
 * this statement and the account's full state in one (./stake_account.ts).
 */
export const historyColumns = (sql: SqlClient) =>
  sql`(select b.epoch_no from tx t join block b on b.id = t.block_id
       where t.id = greatest(
         (select max(r.tx_id) from stake_registration r where r.addr_id = (select id from acct)),
         (select max(d.tx_id) from stake_deregistration d where d.addr_id = (select id from acct)))) as "activeEpoch",
      ((select coalesce(sum(w.amount), 0) from reward w
        where w.addr_id = (select id from acct) and w.type <> 'refund'
          and w.spendable_epoch <= (select epoch_no from tip))
       + (select coalesce(sum(w.amount), 0) from reward_rest w
          where w.addr_id = (select id from acct) and w.spendable_epoch <= (select epoch_no from tip)))::text
        as "rewardsSum",
      (select coalesce(sum(w.amount), 0) from withdrawal w where w.addr_id = (select id from acct))::text
        as "withdrawalsSum",
      (select coalesce(sum(m.amount), 0) from reserve m where m.addr_id = (select id from acct))::text
        as "reservesSum",
      (select coalesce(sum(m.amount), 0) from treasury m where m.addr_id = (select id from acct))::text
        as "treasurySum"`;

/** `hashRawHex`: the 29-byte reward address (header + credential) as hex. */
export const stakeAccountHistory = (
  sql: SqlClient,
  hashRawHex: string,
): Effect.Effect<StakeAccountHistory | undefined, SqlError> =>
  Effect.map(
    sql<StakeAccountHistory>`/* prepared */
      with tip as (select epoch_no from block where block_no is not null order by id desc limit 1),
           acct as (select id from stake_address where hash_raw = decode(${hashRawHex}, 'hex'))
      select ${historyColumns(sql)}
      from acct`,
    ([row]) => row,
  );
