/**
 * Stake snapshots and what db-sync derives from them: epoch_stake and drep_distr rows, and the rewards a pool's
 * members and operator earn from its stake and blocks.
 */
import type { Ledger } from "./ledger.ts";
import type { StakeSnapshot } from "./ledger_types.ts";
import { type PoolEpoch, type PoolReward, poolRewards } from "@src/domain/pool_rewards.ts";
import { protocol } from "./network_params.ts";
import { maxSupply } from "@src/domain/network_constants.ts";
import { rewardDelay, snapshotDelay } from "@src/domain/epoch_boundary.ts";

/** One reward a pool's stake earned, to a wallet's reward account. */
export type RewardRow = PoolReward<number, number>;

/** The stake snapshot at a boundary: delegated, registered keys with UTxO stake plus rewards. */
export const snapshot = (ledger: Ledger): StakeSnapshot => {
  const byPool = new Map<number, Array<[number, number]>>();
  const byDrep = new Map<number, number>();
  ledger.wallets.forEach((w, i) => {
    if (!w.registered) return;
    const amount = Math.max(0, w.utxoStake) + w.rewards;
    if (w.pool >= 0) {
      const p = ledger.pools[w.pool]!;
      if (p.registered && !p.retired && amount > 0) {
        const list = byPool.get(w.pool) ?? [];
        list.push([i, amount]);
        byPool.set(w.pool, list);
      }
    }
    if (w.drep >= 0) byDrep.set(w.drep, (byDrep.get(w.drep) ?? 0) + amount);
  });
  return { byPool, byDrep };
};

export const writeEpochStake = (
  ledger: Ledger,
  epoch: number,
  snap: Pick<StakeSnapshot, "byPool">,
) => {
  for (const [pool, members] of snap.byPool) {
    for (const [w, amount] of members) {
      ledger.row("epoch_stake", [
        ledger.id("epoch_stake"),
        ledger.wallets[w]!.stakeAddressId,
        ledger.pools[pool]!.id,
        amount,
        epoch,
      ]);
    }
  }
  ledger.row("epoch_stake_progress", [ledger.id("epoch_stake_progress"), epoch, true]);
};

/**
 * Rewards earned in `earned` (paid at the boundary into earned + 2), from the snapshot active then and the blocks
 * each pool made (see poolRewards). Returns rows (not yet written) and their total.
 */
export const computeRewards = (ledger: Ledger, earned: number, pot: number) => {
  const snap = ledger.snapshots[earned - snapshotDelay];
  const blocks = ledger.blocksByPool[earned];
  if (!snap || !blocks || pot <= 0) return { rows: [], total: 0 };
  const pools: Array<PoolEpoch<number, number>> = [];
  for (const [pool, members] of snap.byPool) {
    const p = ledger.pools[pool]!;
    pools.push({
      pool,
      members,
      blocks: blocks.get(pool) ?? 0,
      fixedCost: p.fixedCost,
      margin: p.margin,
      rewardAccount: p.rewardWallet,
      owners: p.owners,
    });
  }
  return poolRewards({
    pot,
    supply: Number(maxSupply - ledger.reserves),
    pools,
    registered: (w) => ledger.wallets[w]?.registered ?? false,
  });
};

export const writeRewards = (
  ledger: Ledger,
  rows: ReadonlyArray<RewardRow>,
  earned: number,
  apply: boolean,
) => {
  for (const row of rows) {
    ledger.row("reward", [
      ledger.stakeAddressId(row.account),
      row.type,
      row.amount,
      earned + rewardDelay,
      ledger.pools[row.pool]!.id,
      earned,
    ]);
    if (apply) ledger.wallets[row.account]!.rewards += row.amount;
  }
};

export const writeDrepDistr = (ledger: Ledger, epoch: number, snap: Pick<StakeSnapshot, "byDrep">) => {
  for (const [d, amount] of snap.byDrep) {
    const drep = ledger.dreps[d]!;
    if (d >= 2 && !drep.registered) continue;
    ledger.row("drep_distr", [
      ledger.id("drep_distr"),
      drep.id,
      amount,
      epoch,
      d < 2 ? null : drep.lastActive + protocol.drepActivity,
    ]);
  }
};
