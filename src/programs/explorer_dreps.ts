/**
 * `GET /v2/explorer/{network}/dreps`: DReps a page at a time (src/queries/dreps.ts), with voting power from the
 * newest drep_distr and activity by the ledger's rule. Pages change with votes and delegations, block by block,
 * and reading one costs in proportion to all DReps: each is computed once per block (./at_tip.ts).
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { dreps as query, type DRepsOptions } from "@src/queries/dreps.ts";
import { atTip } from "./at_tip.ts";
import { fromSql } from "@src/domain/errors.ts";

export const dreps = Effect.fnUntraced(function* (network: Network, options: DRepsOptions) {
  const db = (yield* ChainDatabases).get(network);
  return yield* atTip(
    network,
    `dreps:${options.page}:${options.pageSize}:${options.activeOnly}:${options.order ?? "asc"}:${
      options.registeredOnly ?? false
    }:${options.only ? `${options.only.raw}:${options.only.hasScript ?? "any"}` : "all"}`,
    query(db.sql, options).pipe(Effect.mapError(fromSql(network))),
  );
});
