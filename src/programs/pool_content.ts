/**
 * One stake pool with the stake totals its figures are shares of (Blockfrost's `/pools/{pool_id}`): the pool as
 * the explorer reads it (src/queries/pool.ts, cached per block under the explorer's key), and the total stake of
 * the snapshots its live and active stake come from (src/queries/network_stats.ts `epochFigures`, cached per
 * epoch: it sums a whole epoch's stake distribution; not under the statistics' key, whose pots are the tip's).
 * The id is bech32 (`pool1…`, `pool_test1…` on preprod) or the 28-byte hash in hex.
 */
import { Effect } from "effect";
import { Cache } from "@layers/cache.ts";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { decodePoolId } from "@src/domain/cardano_ids.ts";
import { decodedOr, fromSql, NotFoundError } from "@src/domain/errors.ts";
import { epochFigures } from "@src/queries/network_stats.ts";
import { poolInfo } from "@src/queries/pool.ts";
import { atTip } from "./at_tip.ts";

export const poolContent = Effect.fnUntraced(function* (poolId: string, network: Network) {
  const { hash } = /^[0-9a-fA-F]{56}$/.test(poolId)
    ? { hash: poolId.toLowerCase() }
    : yield* decodedOr("pool_id", decodePoolId(poolId, network));
  const db = (yield* ChainDatabases).get(network);
  const cache = yield* Cache;
  const pool = yield* atTip(
    network,
    `pool:${hash}`,
    poolInfo(db.sql, hash).pipe(Effect.mapError(fromSql(network))),
  );
  if (!pool) return yield* new NotFoundError({ message: `Pool ${poolId} is not registered on ${network}` });
  const totalOf = (epoch: number) =>
    cache.getOrCompute(
      `stake-total:${network}:epoch:${epoch}`,
      "10 minutes",
      epochFigures(db.sql, epoch).pipe(Effect.mapError(fromSql(network))),
    ).pipe(Effect.map((f) => f.activeStake));
  const [liveTotal, activeTotal] = yield* Effect.all([totalOf(pool.liveEpoch), totalOf(pool.activeEpoch)]);
  return { pool, liveTotal, activeTotal };
});
