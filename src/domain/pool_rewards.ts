/**
 * The reward update of an epoch boundary, as the demo chain models it: the pot (monetary expansion of the reserves
 * plus the fees of the earned epoch), the treasury's cut, and the rest shared out to pools by their active stake
 * share of the supply and their block production, each pool's reward split between its operator (leader: the
 * fixed cost and the margin of the rest) and its delegators (member). Pure: the demo chain generator feeds it from
 * its in-memory ledger, the devnet's epoch boundary from the chain database.
 */
import { toRatio } from "./ratio.ts";

export interface RewardPot {
  /** Taken from the reserves: `reserves * monetary expansion rate`, rounded down. */
  readonly expansion: number;
  /** Expansion plus the earned epoch's fees. */
  readonly pot: number;
  /** The treasury's cut: `pot * treasury growth rate`, rounded down. */
  readonly toTreasury: number;
}

/** The pot of a reward update; the expansion is exact (the rate as the decimal fraction it prints as). */
export const rewardPot = (o: {
  readonly reserves: bigint;
  readonly fees: number;
  readonly monetaryExpandRate: number;
  readonly treasuryGrowthRate: number;
}): RewardPot => {
  // the reserves pass 2^53 lovelace: multiply as integers
  const [n, d] = toRatio(o.monetaryExpandRate).split("/").map(BigInt) as [bigint, bigint];
  const expansion = Number((o.reserves * n) / d);
  const pot = expansion + o.fees;
  return { expansion, pot, toTreasury: Math.floor(pot * o.treasuryGrowthRate) };
};

/** One pool in the earned epoch: its active stake by delegator, its blocks and its parameters. */
export interface PoolEpoch<Account, Pool> {
  readonly pool: Pool;
  /** Active stake as [account, lovelace], registered or not, in snapshot order. */
  readonly members: ReadonlyArray<readonly [Account, number]>;
  readonly blocks: number;
  readonly fixedCost: number;
  readonly margin: number;
  readonly rewardAccount: Account;
  /** Owners earn no member reward (their stake counts as the pool's pledge). */
  readonly owners: ReadonlyArray<Account>;
}

/** One reward a pool's stake earned: to the operator's reward account (leader) or a delegator's (member). */
export interface PoolReward<Account, Pool> {
  readonly account: Account;
  readonly type: "leader" | "member";
  readonly amount: number;
  readonly pool: Pool;
}

/**
 * Shares `pot` (already net of the treasury's cut) among `pools`: a pool earns `pot * stake / supply * performance`,
 * performance being its blocks over those its stake share predicts (at most 1). Only registered accounts are
 * paid; what is not paid stays with the caller (back to the reserves). Returns the rows and their total.
 */
export const poolRewards = <Account, Pool>(o: {
  readonly pot: number;
  readonly supply: number;
  readonly pools: ReadonlyArray<PoolEpoch<Account, Pool>>;
  readonly registered: (account: Account) => boolean;
}): { rows: Array<PoolReward<Account, Pool>>; total: number } => {
  const rows: Array<PoolReward<Account, Pool>> = [];
  if (o.pot <= 0) return { rows, total: 0 };
  let totalActive = 0;
  for (const p of o.pools) for (const [, a] of p.members) totalActive += a;
  let poolBlocks = 0;
  for (const p of o.pools) poolBlocks += p.blocks;
  let total = 0;
  for (const p of o.pools) {
    const stake = p.members.reduce((s, [, a]) => s + a, 0);
    if (p.blocks === 0 || stake === 0 || poolBlocks === 0) continue;
    const expected = (poolBlocks * stake) / totalActive;
    const performance = Math.min(1, p.blocks / Math.max(expected, 1e-9));
    const poolReward = Math.floor(o.pot * (stake / o.supply) * performance);
    if (poolReward <= 0) continue;
    const leaderCut = poolReward <= p.fixedCost
      ? poolReward
      : p.fixedCost + Math.floor((poolReward - p.fixedCost) * p.margin);
    const rest = poolReward - leaderCut;
    if (o.registered(p.rewardAccount) && leaderCut > 0) {
      rows.push({ account: p.rewardAccount, type: "leader", amount: leaderCut, pool: p.pool });
      total += leaderCut;
    }
    for (const [account, a] of p.members) {
      const amount = Math.floor((rest * a) / stake);
      if (amount > 0 && o.registered(account) && !p.owners.includes(account)) {
        rows.push({ account, type: "member", amount, pool: p.pool });
        total += amount;
      }
    }
  }
  return { rows, total };
};
