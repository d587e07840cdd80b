/**
 * The stake snapshot at the boundary into `epoch`, as the demo chain generator takes it: every registered stake
 * credential's unspent lovelace plus its reward balance. Delegated to a live pool, it is that pool's stake from
 * epoch + 1 (epoch_stake); delegated to a DRep, it is the DRep's voting power in `epoch` (drep_distr, for
 * registered DReps and the two predefined ones, with `active_until` from the DRep's last certificate or vote).
 * Unspent outputs come from `devnet_unspent` (stake_state.ts).
 */
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import type { RowWriter } from "../rows/row_writer.ts";
import { registeredAccounts, rewardBalances } from "./stake_state.ts";
import { snapshotDelay } from "@src/domain/epoch_boundary.ts";

export const writeEpochStake = (w: RowWriter, epoch: number): Effect.Effect<void, SqlError> =>
  Effect.gen(function* () {
    const { sql } = w;
    const active = epoch + snapshotDelay;
    const [done] = yield* sql<{ n: string }>`
      select count(*)::text as n from epoch_stake_progress where epoch_no = ${active}`;
    if (Number(done?.n ?? 0) > 0) return;
    yield* sql`
      with registered as (${registeredAccounts(sql)}),
      delegated as (
        select distinct on (d.addr_id) d.addr_id, d.pool_hash_id
        from delegation d join registered r on r.addr_id = d.addr_id
        where d.tx_id >= r.tx_id
        order by d.addr_id, d.tx_id desc, d.cert_index desc),
      live as (
        select h.id from pool_hash h
        join lateral (select max(u.registered_tx_id) as t from pool_update u where u.hash_id = h.id) u on u.t is not null
        where not exists (select 1 from pool_retire r where r.hash_id = h.id
          and r.retiring_epoch <= ${epoch} and r.announced_tx_id > u.t)),
      balance as (${rewardBalances(sql, epoch)}),
      stake as (
        select d.addr_id, d.pool_hash_id, coalesce(u.amount, 0) + coalesce(b.amount, 0) as amount
        from delegated d left join devnet_unspent u on u.addr_id = d.addr_id left join balance b on b.addr_id = d.addr_id
        where d.pool_hash_id in (select id from live))
      insert into epoch_stake (id, addr_id, pool_id, amount, epoch_no)
      select (select coalesce(max(id), 0) from epoch_stake) + row_number() over (order by s.addr_id),
             s.addr_id, s.pool_hash_id, s.amount, ${active}
      from stake s where s.amount > 0`;
    yield* w.add("epoch_stake_progress", { epoch_no: active, completed: true });
  });

export const writeDrepDistr = (
  w: RowWriter,
  o: { epoch: number; drepActivity: number },
): Effect.Effect<void, SqlError> =>
  Effect.gen(function* () {
    const { sql } = w;
    const [done] = yield* sql<{ n: string }>`
      select count(*)::text as n from drep_distr where epoch_no = ${o.epoch}`;
    if (Number(done?.n ?? 0) > 0) return;
    yield* sql`
      with registered as (${registeredAccounts(sql)}),
      voted as (
        select distinct on (v.addr_id) v.addr_id, v.drep_hash_id
        from delegation_vote v join registered r on r.addr_id = v.addr_id
        where v.tx_id >= r.tx_id
        order by v.addr_id, v.tx_id desc, v.cert_index desc),
      balance as (${rewardBalances(sql, o.epoch)}),
      power as (
        select v.drep_hash_id, sum(coalesce(u.amount, 0) + coalesce(b.amount, 0)) as amount
        from voted v left join devnet_unspent u on u.addr_id = v.addr_id left join balance b on b.addr_id = v.addr_id
        group by v.drep_hash_id),
      certificate as (
        select distinct on (drep_hash_id) drep_hash_id, deposit from drep_registration
        order by drep_hash_id, tx_id desc, cert_index desc),
      activity as (
        select a.drep_hash_id, max(b.epoch_no) as epoch from (
          select drep_hash_id, tx_id from drep_registration where drep_hash_id in (select drep_hash_id from power)
          union all
          select drep_voter, tx_id from voting_procedure where drep_voter in (select drep_hash_id from power)) a
        join tx t on t.id = a.tx_id join block b on b.id = t.block_id
        group by a.drep_hash_id)
      insert into drep_distr (id, hash_id, amount, epoch_no, active_until)
      select (select coalesce(max(id), 0) from drep_distr) + row_number() over (order by p.drep_hash_id),
             p.drep_hash_id, p.amount, ${o.epoch},
             case when h.raw is null then null else coalesce(a.epoch, 0) + ${o.drepActivity} end
      from power p join drep_hash h on h.id = p.drep_hash_id
      left join certificate c on c.drep_hash_id = p.drep_hash_id
      left join activity a on a.drep_hash_id = p.drep_hash_id
      -- the predefined DReps (always abstain, always no confidence) have no credential and are always there
      where h.raw is null or (c.drep_hash_id is not null and coalesce(c.deposit, 0) >= 0)`;
  });
