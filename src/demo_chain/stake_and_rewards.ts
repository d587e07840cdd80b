/**
 * Stake snapshots and what db-sync derives from them: epoch_stake and drep_distr rows, and the rewards a pool's
 * members and operator earn from its stake and blocks.
 */
import type { Ledger } from "./ledger.ts";
import type { StakeSnapshot } from "./ledger_types.ts";
import { maxSupply, protocol } from "./network_params.ts";

/** One reward a pool's stake earned: to the operator's reward account (leader) or a delegator's (member). */
export interface RewardRow {
  readonly wallet: number;
  readonly type: "leader" | "member";
  readonly amount: number;
  readonly pool: number;
}

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
 * Rewards earned in `earned` (paid at the boundary into earned + 2): the pot goes to pools in proportion to
 * their active stake share of the supply and their block production; leader and member shares follow margin and
 * fixed cost. Returns rows (not yet written) and their total.
 */
export const computeRewards = (ledger: Ledger, earned: number, pot: number) => {
  const rows: Array<RewardRow> = [];
  const snap = ledger.snapshots[earned - 1];
  const blocks = ledger.blocksByPool[earned];
  if (!snap || !blocks || pot <= 0) return { rows, total: 0 };
  const supply = Number(maxSupply - ledger.reserves);
  let totalActive = 0;
  for (const members of snap.byPool.values()) for (const [, a] of members) totalActive += a;
  let poolBlocks = 0;
  for (const n of blocks.values()) poolBlocks += n;
  let total = 0;
  for (const [pool, members] of snap.byPool) {
    const p = ledger.pools[pool]!;
    const stake = members.reduce((s, [, a]) => s + a, 0);
    const produced = blocks.get(pool) ?? 0;
    if (produced === 0 || stake === 0 || poolBlocks === 0) continue;
    const expected = (poolBlocks * stake) / totalActive;
    const performance = Math.min(1, produced / Math.max(expected, 1e-9));
    const poolReward = Math.floor(pot * (stake / supply) * performance);
    if (poolReward <= 0) continue;
    const leaderCut = poolReward <= p.fixedCost
      ? poolReward
      : p.fixedCost + Math.floor((poolReward - p.fixedCost) * p.margin);
    const rest = poolReward - leaderCut;
    const owner = ledger.wallets[p.rewardWallet];
    if (owner?.registered && leaderCut > 0) {
      rows.push({ wallet: p.rewardWallet, type: "leader", amount: leaderCut, pool });
      total += leaderCut;
    }
    for (const [w, a] of members) {
      const amount = Math.floor((rest * a) / stake);
      if (amount > 0 && ledger.wallets[w]!.registered && !p.owners.includes(w)) {
        rows.push({ wallet: w, type: "member", amount, pool });
        total += amount;
      }
    }
  }
  return { rows, total };
};

export const writeRewards = (
  ledger: Ledger,
  rows: ReadonlyArray<RewardRow>,
  earned: number,
  apply: boolean,
) => {
  for (const row of rows) {
    ledger.row("reward", [
      ledger.stakeAddressId(row.wallet),
      row.type,
      row.amount,
      earned + 2,
      ledger.pools[row.pool]!.id,
      earned,
    ]);
    if (apply) ledger.wallets[row.wallet]!.rewards += row.amount;
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
