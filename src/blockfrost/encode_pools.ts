/**
 * Blockfrost's `pool`, `dreps` items and `drep` from the programs' pool (with its snapshots' totals) and DReps.
 * Sizes are the pool's share of its snapshot's total stake (0 when the snapshot is empty).
 */
import type { DRep, DRepListItem, Pool } from "@schemas/blockfrost/pools.ts";
import type { DRep as DRepValue } from "@src/queries/dreps.ts";
import type { PoolInfo } from "@src/queries/pool.ts";

const share = (stake: string, total: string) => (BigInt(total) === 0n ? 0 : Number(stake) / Number(total));

export const encodePool = (
  { pool, liveTotal, activeTotal }: { pool: PoolInfo; liveTotal: string; activeTotal: string },
): typeof Pool.Type => ({
  pool_id: pool.poolIdBech32,
  hex: pool.poolId,
  vrf_key: pool.vrfKeyHash,
  blocks_minted: pool.lifetimeBlocks,
  blocks_epoch: pool.epochBlocks,
  live_stake: pool.liveStake,
  live_size: share(pool.liveStake, liveTotal),
  live_saturation: pool.saturationRatio,
  live_delegators: pool.delegatorCount,
  active_stake: pool.activeStake,
  active_size: share(pool.activeStake, activeTotal),
  declared_pledge: pool.pledge,
  live_pledge: pool.livePledge,
  margin_cost: pool.margin,
  fixed_cost: pool.fixedCost,
  reward_account: pool.rewardAddress,
  owners: pool.owners,
  registration: pool.registrations,
  retirement: pool.retirements,
  calidus_key: null,
});

/** The list's DReps all have a credential (the special ones are left out by the route's options). */
export const encodeDRepItem = (d: DRepValue): typeof DRepListItem.Type => ({
  drep_id: d.drepIdBech32,
  hex: d.hex ?? "",
  amount: d.votingPower ?? "0",
  has_script: d.hasScript,
  retired: d.retired,
  expired: d.expired,
  last_active_epoch: d.lastActiveEpoch,
  metadata: d.anchor === null ? null : {
    url: d.anchor.url,
    hash: d.anchor.hash,
    json_metadata: d.anchor.json,
    bytes: d.anchor.bytes,
  },
});

export const encodeDRep = (d: DRepValue): typeof DRep.Type => ({
  drep_id: d.drepIdBech32,
  hex: d.hex ?? "",
  amount: d.votingPower ?? "0",
  active: !d.retired,
  active_epoch: d.activeEpoch,
  has_script: d.hasScript,
  retired: d.retired,
  expired: d.expired,
  last_active_epoch: d.lastActiveEpoch,
});
