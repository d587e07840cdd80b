/**
 * The newest stake snapshot db-sync holds (epoch_stake at its highest epoch: the distribution taken at the last
 * boundary, which becomes active an epoch later), summed per pool, with each pool's current VRF key hash.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import type { Effect } from "effect";

export interface PoolStakeRow {
  readonly id: string;
  readonly stake: string;
  readonly vrf: string | null;
}

export const latestStakeDistribution = (
  sql: SqlClient,
): Effect.Effect<ReadonlyArray<PoolStakeRow>, SqlError> =>
  sql<PoolStakeRow>`
    with snapshot as (select max(epoch_no) as epoch from epoch_stake),
         per_pool as (select pool_id, sum(amount) as stake from epoch_stake
                      where epoch_no = (select epoch from snapshot) group by pool_id)
    select p.view as id, s.stake::text as stake,
           (select encode(u.vrf_key_hash, 'hex') from pool_update u where u.hash_id = p.id
            order by u.registered_tx_id desc, u.cert_index desc limit 1) as vrf
    from per_pool s join pool_hash p on p.id = s.pool_id
    order by p.id`;
