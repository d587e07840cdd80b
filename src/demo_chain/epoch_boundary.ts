/**
 * The epoch boundary: epoch_finalized and epoch_param rows, rewards, pool retirement refunds, enacted treasury
 * withdrawals, the stake distribution, and ada_pots, checked to add up to the maximum supply.
 */
import type { CopyValue } from "./copy_sink.ts";
import type { Ledger } from "./ledger.ts";
import { rewardPot } from "@src/domain/pool_rewards.ts";
import {
  adaPotsBalance,
  adaPotsTotal,
  refundDelay,
  rewardDelay,
  rewardUpdateMoves,
  snapshotDelay,
} from "@src/domain/epoch_boundary.ts";
import { epochParamValues, protocol } from "./network_params.ts";
import { b, utc } from "./row_values.ts";
import {
  computeRewards,
  snapshot,
  writeDrepDistr,
  writeEpochStake,
  writeRewards,
} from "./stake_and_rewards.ts";

const totalUtxo = (ledger: Ledger): bigint => {
  let sum = 0n;
  for (let i = 1; i < (ledger.next.get("tx_out") ?? 1); i++) {
    if (ledger.outSpent.data[i] === 0) sum += BigInt(ledger.outValue.data[i]!);
  }
  return sum;
};

const totalRewards = (ledger: Ledger): bigint => {
  let sum = 0n;
  for (const w of ledger.wallets) sum += BigInt(w.rewards);
  return sum;
};

/** Everything the ledger does entering `epoch`, written against that epoch's first block. */
export const epochBoundary = (ledger: Ledger, epoch: number, firstBlockId: number, firstSlot: number) => {
  // 1. finish the previous epoch's books
  if (epoch > 0) {
    ledger.row("epoch_finalized", [
      ledger.id("epoch_finalized"),
      ledger.epochOutSum,
      ledger.feesByEpoch[epoch - 1] ?? 0,
      ledger.epochTxCount,
      ledger.epochBlockCount,
      epoch - 1,
      utc(ledger.epochStart),
      utc(ledger.epochEnd),
    ]);
  }
  ledger.epochOutSum = 0n;
  ledger.epochTxCount = 0;
  ledger.epochBlockCount = 0;
  // 2. parameters for the new epoch
  ledger.row(
    "epoch_param",
    epochParamValues(
      ledger.id("epoch_param"),
      epoch,
      b(ledger.r.hex(32)),
      ledger.costModelId,
      firstBlockId,
    ) as unknown as Array<CopyValue>,
  );
  if (epoch === 0) {
    ledger.snapshots[0] = snapshot(ledger);
    return;
  }
  // 3. the reward update: monetary expansion plus the fees of epoch - 2
  const earned = epoch - rewardDelay;
  const rewardPots = rewardPot({
    reserves: ledger.reserves,
    fees: ledger.feesByEpoch[earned] ?? 0,
    monetaryExpandRate: protocol.monetaryExpandRate,
    treasuryGrowthRate: protocol.treasuryGrowthRate,
  });
  const { rows, total } = computeRewards(ledger, earned, rewardPots.pot - rewardPots.toTreasury);
  writeRewards(ledger, rows, earned, true);
  const moves = rewardUpdateMoves(rewardPots, total);
  ledger.treasury += moves.toTreasury;
  ledger.reserves += moves.reservesChange;
  // 4. pool retirements take effect: deposit refunds to the reward account
  for (const p of ledger.pools) {
    if (p.retiring === epoch && !p.retired) {
      p.retired = true;
      ledger.worldVersion++;
      ledger.depositsStake -= BigInt(protocol.poolDeposit);
      const owner = ledger.wallets[p.rewardWallet]!;
      if (owner.registered) {
        ledger.row("reward", [
          owner.stakeAddressId,
          "refund",
          protocol.poolDeposit,
          epoch,
          p.id,
          epoch - refundDelay,
        ]);
        owner.rewards += protocol.poolDeposit;
      } else {
        ledger.treasury += BigInt(protocol.poolDeposit);
      }
    }
  }
  // 5. enacted governance: treasury withdrawals and their deposit refunds
  for (const prop of ledger.proposals) {
    if (prop.enactAt !== epoch) continue;
    const beneficiary = ledger.wallets[prop.beneficiary]!;
    const returner = ledger.wallets[prop.returnWallet]!;
    ledger.row("reward_rest", [
      ledger.stakeAddressId(prop.beneficiary),
      "treasury",
      prop.amount,
      epoch,
      epoch - refundDelay,
    ]);
    ledger.row("reward_rest", [
      ledger.stakeAddressId(prop.returnWallet),
      "proposal_refund",
      prop.deposit,
      epoch,
      epoch - refundDelay,
    ]);
    ledger.treasury -= BigInt(prop.amount);
    beneficiary.rewards += prop.amount;
    returner.rewards += prop.deposit;
    ledger.depositsProposal -= BigInt(prop.deposit);
  }
  // 6. stake distribution: the snapshot taken entering epoch - 1 is active now
  const active = ledger.snapshots[epoch - snapshotDelay];
  if (active) writeEpochStake(ledger, epoch, active);
  ledger.snapshots[epoch] = snapshot(ledger);
  writeDrepDistr(ledger, epoch, ledger.snapshots[epoch]!);
  // 7. the pots, which always add up to the maximum supply
  const utxo = totalUtxo(ledger);
  const rewards = totalRewards(ledger);
  const feesPot = BigInt(ledger.feesByEpoch[epoch - 1] ?? 0);
  const pots = {
    treasury: ledger.treasury,
    reserves: ledger.reserves,
    rewards,
    utxo,
    depositsStake: ledger.depositsStake,
    fees: feesPot,
    depositsDrep: ledger.depositsDrep,
    depositsProposal: ledger.depositsProposal,
  };
  if (!adaPotsBalance(pots)) {
    throw new Error(`demo chain: ada_pots do not add up at epoch ${epoch}: ${adaPotsTotal(pots)}`);
  }
  ledger.row("ada_pots", [
    ledger.id("ada_pots"),
    firstSlot,
    epoch,
    ledger.treasury,
    ledger.reserves,
    rewards,
    utxo,
    ledger.depositsStake,
    feesPot,
    firstBlockId,
    ledger.depositsDrep,
    ledger.depositsProposal,
  ]);
};
