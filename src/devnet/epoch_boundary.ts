/**
 * The epoch boundary as db-sync records it, written with the first devnet block of a new epoch (for every
 * epoch the chain crossed since its tip): the finished epoch's totals (epoch_finalized), the new epoch's
 * parameters (unchanged: a copy of the last epoch_param), ada_pots that add up to the maximum supply, and the
 * stake snapshot taken now, which becomes active next epoch (epoch_stake for epoch + 1, as the generator does).
 */
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import { epochParamColumns, maxSupply } from "@src/demo_chain/network_params.ts";
import { type RowWriter, text } from "./rows.ts";

/** epoch_param columns copied from the previous epoch (all but the row's identity and nonce). */
const copiedParamColumns = epochParamColumns.filter((c) =>
  !["id", "epoch_no", "nonce", "block_id"].includes(c)
);

interface Pots {
  readonly treasury: string;
  readonly reserves: string;
  readonly depositsStake: string;
  readonly depositsDrep: string;
  readonly depositsProposal: string;
  readonly blockId: string;
}

export const writeEpochBoundaries = (
  w: RowWriter,
  at: { from: number; to: number; blockId: number; slot: number; time: Date },
): Effect.Effect<void, SqlError> =>
  Effect.gen(function* () {
    const { sql } = w;
    // the tip's epoch is finished: its totals, as the epoch view counted them
    yield* sql`
      insert into epoch_finalized (id, out_sum, fees, tx_count, blk_count, no, start_time, end_time)
      select coalesce((select max(id) from epoch_finalized), 0) + 1, coalesce(sum(t.out_sum), 0),
             coalesce(sum(t.fee), 0), count(t.id), count(distinct b.id), ${at.from}, min(b.time), max(b.time)
      from block b left join tx t on t.block_id = b.id
      where b.epoch_no = ${at.from} and not exists (select 1 from epoch_finalized where no = ${at.from})
      having count(distinct b.id) > 0`;
    for (let epoch = at.from + 1; epoch <= at.to; epoch++) {
      const columns = copiedParamColumns.map((c) => sql`${sql(c)}`);
      yield* sql`
        insert into epoch_param (id, epoch_no, nonce, block_id, ${sql.csv(columns)})
        select ${yield* w.id(
        "epoch_param",
      )}, ${epoch}, sha256(convert_to(${`devnet-nonce-${epoch}`}, 'UTF8')),
               ${at.blockId}, ${sql.csv(columns)}
        from epoch_param where epoch_no < ${epoch} order by epoch_no desc limit 1`;
      yield* writePots(w, epoch, at);
      yield* writeStakeSnapshot(w, epoch + 1);
    }
  });

const writePots = (w: RowWriter, epoch: number, at: { blockId: number; slot: number }) =>
  Effect.gen(function* () {
    const { sql } = w;
    const [previous] = yield* sql<Pots>`
      select treasury::text as treasury, reserves::text as reserves, deposits_stake::text as "depositsStake",
             deposits_drep::text as "depositsDrep", deposits_proposal::text as "depositsProposal",
             block_id::text as "blockId"
      from ada_pots order by epoch_no desc limit 1`;
    if (!previous) return;
    const [sums] = yield* sql<{ utxo: string; fees: string; deposits: string }>`
      select
        (select coalesce(sum(o.value), 0) from tx_out o
          where not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index))::text
          as utxo,
        (select coalesce(sum(t.fee), 0) from tx t join block b on b.id = t.block_id
          where b.epoch_no = ${epoch - 1})::text as fees,
        (select coalesce(sum(t.deposit), 0) from tx t where t.block_id > ${previous.blockId}
          and t.block_id < ${at.blockId})::text as deposits`;
    const depositsStake = BigInt(previous.depositsStake) + BigInt(sums!.deposits);
    const fixed = BigInt(previous.treasury) + BigInt(previous.reserves) + BigInt(sums!.utxo) + depositsStake +
      BigInt(sums!.fees) + BigInt(previous.depositsDrep) + BigInt(previous.depositsProposal);
    yield* w.add("ada_pots", {
      slot_no: at.slot,
      epoch_no: epoch,
      treasury: previous.treasury,
      reserves: previous.reserves,
      // what is left of the supply sits in reward accounts: the pots always add up to 45 billion ADA
      rewards: text(maxSupply - fixed),
      utxo: sums!.utxo,
      deposits_stake: text(depositsStake),
      fees: sums!.fees,
      block_id: at.blockId,
      deposits_drep: previous.depositsDrep,
      deposits_proposal: previous.depositsProposal,
    });
  });

/** The stake of every registered, delegated credential (its unspent outputs), active in `epoch`. */
const writeStakeSnapshot = (w: RowWriter, epoch: number) =>
  Effect.gen(function* () {
    const { sql } = w;
    const [done] = yield* sql<{ n: string }>`
      select count(*)::text as n from epoch_stake_progress where epoch_no = ${epoch}`;
    if (Number(done?.n ?? 0) > 0) return;
    yield* sql`
      with registration as (select addr_id, max(tx_id) as t from stake_registration group by addr_id),
      deregistration as (select addr_id, max(tx_id) as t from stake_deregistration group by addr_id),
      delegated as (
        select distinct on (d.addr_id) d.addr_id, d.pool_hash_id, d.tx_id
        from delegation d join registration r on r.addr_id = d.addr_id
        left join deregistration x on x.addr_id = d.addr_id
        where (x.t is null or r.t > x.t) and d.tx_id >= r.t
        order by d.addr_id, d.tx_id desc, d.cert_index desc),
      utxo as (
        select o.stake_address_id as addr_id, sum(o.value) as amount from tx_out o
        where o.stake_address_id in (select addr_id from delegated)
          and not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)
        group by o.stake_address_id)
      insert into epoch_stake (id, addr_id, pool_id, amount, epoch_no)
      select (select coalesce(max(id), 0) from epoch_stake) + row_number() over (order by d.addr_id),
             d.addr_id, d.pool_hash_id, u.amount, ${epoch}
      from delegated d join utxo u on u.addr_id = d.addr_id
      where u.amount > 0`;
    yield* w.add("epoch_stake_progress", { epoch_no: epoch, completed: true });
  });
