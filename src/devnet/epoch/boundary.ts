/**
 * The epoch boundary as db-sync records it, written with the first devnet block of a new epoch (for every epoch
 * the chain crossed since its tip), doing what the demo chain generator's boundary does (src/demo_chain/
 * epoch_boundary.ts) from the chain database: the finished epoch's totals (epoch_finalized), the new epoch's
 * parameters (a copy of the last epoch_param), the reward update (reward_update.ts), pool retirements taking
 * effect (pool_refunds.ts), governance enactment and proposal refunds (governance/enactment.ts), the stake
 * snapshot and DRep distribution (stake_snapshot.ts), ada_pots, which add up to the maximum supply (treasury
 * donations join the treasury, enacted withdrawals leave it), then epoch_state and the new epoch's ratification (governance/ratification.ts).
 */
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import { epochParamColumns } from "@src/demo_chain/network_params.ts";
import { adaPotsBalance, adaPotsTotal, rewardUpdateMoves } from "@src/domain/epoch_boundary.ts";
import { enactRatified, writeEpochState } from "../governance/enactment.ts";
import { ratifyEpoch } from "../governance/ratification.ts";
import { writePoolRefunds } from "./pool_refunds.ts";
import { writeRewardUpdate } from "./reward_update.ts";
import { type RowWriter, text } from "../rows/row_writer.ts";
import { createUnspentTable, rewardBalances } from "./stake_state.ts";
import { writeDrepDistr, writeEpochStake } from "./stake_snapshot.ts";

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

interface BoundaryParams {
  readonly monetaryExpandRate: number;
  readonly treasuryGrowthRate: number;
  readonly poolDeposit: string;
  readonly drepActivity: string | null;
}

export const writeEpochBoundaries = (
  w: RowWriter,
  at: { from: number; to: number; blockId: number; slot: number },
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
    yield* createUnspentTable(sql);
    // catching up after a long stop crosses many epochs in one block: say how far it is every few seconds
    let told = performance.now();
    for (let epoch = at.from + 1; epoch <= at.to; epoch++) {
      if (performance.now() - told > 3000) {
        told = performance.now();
        yield* Effect.logInfo(
          `devnet: epoch boundaries ${epoch - at.from - 1} of ${at.to - at.from} written`,
        );
      }
      const columns = copiedParamColumns.map((c) => sql`${sql(c)}`);
      yield* sql`
        insert into epoch_param (id, epoch_no, nonce, block_id, ${sql.csv(columns)})
        select ${yield* w.id(
        "epoch_param",
      )}, ${epoch}, sha256(convert_to(${`devnet-nonce-${epoch}`}, 'UTF8')),
               ${at.blockId}, ${sql.csv(columns)}
        from epoch_param where epoch_no < ${epoch} order by epoch_no desc limit 1`;
      yield* writeEpoch(w, epoch, at);
    }
  });

/** Everything after the parameters, in the generator's order: rewards, refunds, snapshot, pots; then governance. */
const writeEpoch = (w: RowWriter, epoch: number, at: { blockId: number; slot: number }) =>
  Effect.gen(function* () {
    const { sql } = w;
    const [params] = yield* sql<BoundaryParams>`
      select monetary_expand_rate as "monetaryExpandRate", treasury_growth_rate as "treasuryGrowthRate",
             pool_deposit::text as "poolDeposit", drep_activity::text as "drepActivity"
      from epoch_param where epoch_no = ${epoch}`;
    const [previous] = yield* sql<Pots>`
      select treasury::text as treasury, reserves::text as reserves, deposits_stake::text as "depositsStake",
             deposits_drep::text as "depositsDrep", deposits_proposal::text as "depositsProposal",
             block_id::text as "blockId"
      from ada_pots where epoch_no < ${epoch} order by epoch_no desc limit 1`;
    if (!params || !previous) return;
    const reward = yield* writeRewardUpdate(sql, {
      epoch,
      reserves: BigInt(previous.reserves),
      monetaryExpandRate: params.monetaryExpandRate,
      treasuryGrowthRate: params.treasuryGrowthRate,
    });
    const refunds = yield* writePoolRefunds(sql, { epoch, poolDeposit: BigInt(params.poolDeposit) });
    const enactment = yield* enactRatified(w, epoch);
    yield* writeEpochStake(w, epoch);
    yield* writeDrepDistr(w, { epoch, drepActivity: Number(params.drepActivity ?? 0) });
    // what moved since the last pots: the transactions from the previous boundary's block (whose own
    // transactions came after that boundary) up to this block
    const [sums] = yield* sql<
      {
        utxo: string;
        fees: string;
        deposits: string;
        drep: string;
        proposal: string;
        donations: string;
        rewards: string;
      }
    >`
      with moved as (select id, deposit, treasury_donation from tx
                     where block_id >= ${previous.blockId} and block_id < ${at.blockId})
      select
        (select coalesce(sum(amount), 0) from devnet_unspent)::text as utxo,
        (select coalesce(sum(t.fee), 0) from tx t join block b on b.id = t.block_id
          where b.epoch_no = ${epoch - 1})::text as fees,
        (select coalesce(sum(deposit), 0) from moved)::text as deposits,
        (select coalesce(sum(deposit), 0) from drep_registration where tx_id in (select id from moved))::text
          as drep,
        (select coalesce(sum(deposit), 0) from gov_action_proposal where tx_id in (select id from moved))::text
          as proposal,
        (select coalesce(sum(treasury_donation), 0) from moved)::text as donations,
        (select coalesce(sum(amount), 0) from (${rewardBalances(sql, epoch)}) b)::text as rewards`;
    const s = sums!;
    const moves = rewardUpdateMoves(reward, reward.paid);
    const treasury = BigInt(previous.treasury) + moves.toTreasury + refunds.toTreasury +
      BigInt(s.donations) - enactment.paid + enactment.unclaimed;
    const reserves = BigInt(previous.reserves) + moves.reservesChange;
    const depositsDrep = BigInt(previous.depositsDrep) + BigInt(s.drep);
    const depositsProposal = BigInt(previous.depositsProposal) + BigInt(s.proposal) - enactment.refunded;
    // a transaction's deposit is stake, DRep and proposal deposits together
    const depositsStake = BigInt(previous.depositsStake) + BigInt(s.deposits) - BigInt(s.drep) -
      BigInt(s.proposal) - refunds.refunded;
    const pots = {
      treasury,
      reserves,
      rewards: BigInt(s.rewards),
      utxo: BigInt(s.utxo),
      depositsStake,
      fees: BigInt(s.fees),
      depositsDrep,
      depositsProposal,
    };
    if (!adaPotsBalance(pots)) {
      yield* Effect.logError(
        `devnet: ada_pots of epoch ${epoch} add up to ${adaPotsTotal(pots)}, not the maximum supply`,
      );
    }
    yield* w.add("ada_pots", {
      slot_no: at.slot,
      epoch_no: epoch,
      treasury: text(treasury),
      reserves: text(reserves),
      rewards: s.rewards,
      utxo: s.utxo,
      deposits_stake: text(depositsStake),
      fees: s.fees,
      block_id: at.blockId,
      deposits_drep: text(depositsDrep),
      deposits_proposal: text(depositsProposal),
    });
    yield* writeEpochState(w, epoch);
    yield* ratifyEpoch(w, epoch);
  });
