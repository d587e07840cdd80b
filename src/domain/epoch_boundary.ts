/**
 * The epoch boundary's rules that the demo chain generator (in memory, src/demo_chain/epoch_boundary.ts) and the
 * devnet (in SQL over the chain database, src/devnet/epoch/) both follow: which epoch a boundary's rewards,
 * refunds and stake snapshot belong to, how the reward update moves the treasury and the reserves, and the
 * ada_pots identity. The reward formula itself is pool_rewards.ts; the supply is network_constants.ts.
 */
import { maxSupply } from "./network_constants.ts";
import type { RewardPot } from "./pool_rewards.ts";

/** Rewards earned in epoch e (its fees and blocks, over its active stake) are paid at the boundary into e + 2 and spendable then. */
export const rewardDelay = 2;

/** The stake snapshot taken at the boundary into e is the active stake (epoch_stake) of e + 1. */
export const snapshotDelay = 1;

/**
 * What a boundary into e pays back outside the reward update (pool deposit refunds, proposal deposit refunds,
 * enacted treasury withdrawals) counts as earned in e - 1 and is spendable in e, as db-sync writes it.
 */
export const refundDelay = 1;

/**
 * How the reward update moves the pots: the treasury takes its cut, the reserves give the monetary expansion
 * and take back what was not paid (to unregistered accounts, or lost to rounding).
 */
export const rewardUpdateMoves = (
  pot: RewardPot,
  paid: number,
): { readonly toTreasury: bigint; readonly reservesChange: bigint } => ({
  toTreasury: BigInt(pot.toTreasury),
  reservesChange: BigInt(pot.pot - pot.toTreasury - paid) - BigInt(pot.expansion),
});

/** db-sync's ada_pots of one epoch. */
export interface AdaPots {
  readonly treasury: bigint;
  readonly reserves: bigint;
  readonly rewards: bigint;
  readonly utxo: bigint;
  readonly depositsStake: bigint;
  readonly fees: bigint;
  readonly depositsDrep: bigint;
  readonly depositsProposal: bigint;
}

export const adaPotsTotal = (p: AdaPots): bigint =>
  p.treasury + p.reserves + p.rewards + p.utxo + p.depositsStake + p.fees + p.depositsDrep +
  p.depositsProposal;

/** Every lovelace is in exactly one pot: the pots add up to the maximum supply. */
export const adaPotsBalance = (p: AdaPots): boolean => adaPotsTotal(p) === maxSupply;
