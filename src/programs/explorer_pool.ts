/**
 * `GET /v2/explorer/{network}/pool/{poolId}`: one pool in full (src/queries/pool.ts). Lifetime rewards and the
 * 30-day return on stake read the pool's reward rows, so they are computed once per pool and epoch (they only
 * change at epoch boundaries). ros30d is left out (the spec: optional, not nullable) when the pool has no history.
 */
import { Effect } from "effect";
import { Cache } from "@layers/cache.ts";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { decodePoolId } from "@src/domain/cardano_ids.ts";
import { poolInfo, poolLifetimeRewards, poolReturnOnStake30d } from "@src/queries/pool.ts";
import { tipPosition } from "@src/queries/network_stats.ts";
import { atTip } from "./at_tip.ts";
import { decodedOr, fromSql, NotFoundError } from "@src/domain/errors.ts";

export const pool = Effect.fnUntraced(function* (network: Network, poolId: string) {
  const { hash } = yield* decodedOr("poolId", decodePoolId(poolId, network));
  const db = (yield* ChainDatabases).get(network);
  const cache = yield* Cache;
  const found = yield* atTip(
    network,
    `pool:${hash}`,
    poolInfo(db.sql, hash).pipe(Effect.mapError(fromSql(network))),
  );
  if (!found) return yield* new NotFoundError({ message: `Pool ${poolId} is not registered on ${network}` });
  // the epoch, for the per-epoch keys below: read once per tip, not per request
  const tip = yield* atTip(
    network,
    "tip-position",
    tipPosition(db.sql).pipe(Effect.mapError(fromSql(network))),
  );
  const perEpoch = `pool:${network}:${hash}:${tip?.epochNo ?? 0}`;
  const [lifetimeRewards, ros30d] = yield* Effect.all([
    cache.getOrCompute(
      `${perEpoch}:rewards`,
      "1 hour",
      poolLifetimeRewards(db.sql, hash).pipe(Effect.mapError(fromSql(network))),
    ),
    cache.getOrCompute(
      `${perEpoch}:ros30d`,
      "1 hour",
      poolReturnOnStake30d(db.sql, hash).pipe(
        Effect.map((ros) => ros ?? null),
        Effect.mapError(fromSql(network)),
      ),
    ),
  ]);
  return { ...found, lifetimeRewards, ...(ros30d === null ? {} : { ros30d }) };
});
