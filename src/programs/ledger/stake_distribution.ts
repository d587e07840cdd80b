/**
 * Each pool's delegated stake in db-sync's newest stake snapshot (db-sync keeps no stake any livelier than
 * that), with the total it is a share of. Pools without a VRF key hash on record are left out of the list but
 * counted in the total.
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { fromSql } from "@src/domain/errors.ts";
import { latestStakeDistribution } from "@src/queries/stake_distribution.ts";

export interface PoolStake {
  readonly id: string;
  readonly vrf: string;
  readonly stake: bigint;
}

export interface StakeDistribution {
  readonly pools: ReadonlyArray<PoolStake>;
  readonly total: bigint;
}

export const liveStakeDistribution = (network: Network) =>
  Effect.flatMap(ChainDatabases, (dbs) => latestStakeDistribution(dbs.get(network).sql)).pipe(
    Effect.mapError(fromSql(network)),
    Effect.map((rows): StakeDistribution => ({
      total: rows.reduce((s, r) => s + BigInt(r.stake), 0n),
      pools: rows.flatMap((r) => (r.vrf === null ? [] : [{ id: r.id, vrf: r.vrf, stake: BigInt(r.stake) }])),
    })),
  );
