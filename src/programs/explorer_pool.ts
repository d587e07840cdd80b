/**
 * `GET /v2/explorer/{network}/pool/{poolId}`: one pool in full (src/queries/pool.ts). Lifetime rewards read every
 * reward row of the pool, so they are summed once per pool and epoch (they only change at epoch boundaries).
 */
import { Effect } from "effect";
import { Cache } from "@layers/cache.ts";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { decodePoolId } from "@src/domain/cardano_ids.ts";
import { poolInfo, poolLifetimeRewards } from "@src/queries/pool.ts";
import { tipPosition } from "@src/queries/network_stats.ts";
import { atTip } from "./at_tip.ts";
import { decodedOr, fromSql, NotFoundError } from "@src/domain/errors.ts";

export const pool = Effect.fn("explorer.pool")(function* (network: Network, poolId: string) {
  const { hash } = yield* decodedOr("poolId", decodePoolId(poolId, network));
  const db = (yield* ChainDatabases).get(network);
  const cache = yield* Cache;
  const found = yield* atTip(
    network,
    `pool:${hash}`,
    poolInfo(db.sql, hash).pipe(Effect.mapError(fromSql(network))),
  );
  if (!found) return yield* new NotFoundError({ message: `Pool ${poolId} is not registered on ${network}` });
  const tip = yield* tipPosition(db.sql).pipe(Effect.mapError(fromSql(network)));
  const lifetimeRewards = yield* cache.getOrCompute(
    `pool:${network}:${hash}:rewards:${tip?.epochNo ?? 0}`,
    "1 hour",
    poolLifetimeRewards(db.sql, hash).pipe(Effect.mapError(fromSql(network))),
  );
  return { ...found, lifetimeRewards };
});
