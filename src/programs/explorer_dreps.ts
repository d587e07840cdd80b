/**
 * `GET /v2/explorer/{network}/dreps`: DReps a page at a time (src/queries/dreps.ts), with voting power from the
 * newest drep_distr and activity by the ledger's rule. Pages are cached briefly: they change with votes and
 * delegations, block by block, but reading them costs in proportion to all DReps.
 */
import { Effect } from "effect";
import { Cache } from "@layers/cache.ts";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { dreps as query, type DRepsOptions } from "@src/queries/dreps.ts";
import { fromSql } from "@src/rest/endpoint.ts";

export const dreps = Effect.fn("explorer.dreps")(function* (network: Network, options: DRepsOptions) {
  const db = (yield* ChainDatabases).get(network);
  const cache = yield* Cache;
  return yield* cache.getOrCompute(
    `dreps:${network}:${options.page}:${options.pageSize}:${options.activeOnly}`,
    "20 seconds",
    query(db.sql, options).pipe(Effect.mapError(fromSql(network))),
  );
});
