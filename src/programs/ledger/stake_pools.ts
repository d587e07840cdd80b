/** Registered stake pools (all, or those of the given key hashes), with this epoch's active stake on request. */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { fromSql } from "@src/domain/errors.ts";
import { stakePools } from "@src/queries/stake_pools.ts";

export interface StakePoolsFilter {
  /** Pool key hashes (hex); null for every registered pool. */
  readonly hashes: ReadonlyArray<string> | null;
  readonly includeStake: boolean;
}

export const registeredStakePools = (network: Network, filter: StakePoolsFilter) =>
  Effect.flatMap(ChainDatabases, (dbs) => stakePools(dbs.get(network).sql, filter)).pipe(
    Effect.mapError(fromSql(network)),
  );
