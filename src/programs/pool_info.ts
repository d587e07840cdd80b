/**
 * `GET /api/public/pool-info?poolId=…`: the spec's short view of a pool. The network comes from the id: a
 * `pool_test1…` id is a preprod pool; a `pool1…` id (what Cardano uses on every network) is looked up on
 * mainnet unless `network` says otherwise (`poolInfoNetwork`, which the route resolves once).
 */
import { Effect, Either } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import type { PublicPoolInfo } from "@schemas/public.ts";
import { decodePoolId, poolIdNetwork } from "@src/domain/cardano_ids.ts";
import { poolInfo as query } from "@src/queries/pool.ts";
import { atTip } from "./at_tip.ts";
import { decodedOr, fromSql, InvalidParameter, NotFoundError } from "@src/domain/errors.ts";

/**
 * The network a pool-info request concerns: the id's (`pool_test1…` is preprod), else the one asked, else
 * mainnet; a 400 when the two disagree. The router checks the key against this network and the program reads it.
 */
export const poolInfoNetwork = (
  poolId: string,
  asked: Network | undefined,
): Either.Either<Network, InvalidParameter> => {
  const implied = poolIdNetwork(poolId);
  if (implied && asked && implied !== asked) {
    return Either.left(
      new InvalidParameter({
        parameter: "network",
        reason: `is ${asked}, but ${poolId.slice(0, 10)}… is a ${implied} pool id`,
      }),
    );
  }
  return Either.right(implied ?? asked ?? "mainnet");
};

export const poolInfo = Effect.fnUntraced(function* (poolId: string, network: Network) {
  const { hash } = yield* decodedOr("poolId", decodePoolId(poolId, network));
  const db = (yield* ChainDatabases).get(network);
  const pool = yield* atTip(
    network,
    `pool:${hash}`,
    query(db.sql, hash).pipe(Effect.mapError(fromSql(network))),
  );
  if (!pool) return yield* new NotFoundError({ message: `Pool ${poolId} is not registered on ${network}` });
  return {
    poolId: pool.poolId,
    poolIdBech32: pool.poolIdBech32,
    ticker: pool.ticker,
    name: pool.name,
    description: pool.description,
    margin: pool.margin,
    fixedCost: pool.fixedCost,
    pledge: pool.pledge,
    activeStake: pool.activeStake,
    delegatorCount: pool.delegatorCount,
    blocksLifetime: pool.lifetimeBlocks,
    blocksEpoch: pool.epochBlocks,
    relays: pool.relays,
  } satisfies typeof PublicPoolInfo.Type;
});
