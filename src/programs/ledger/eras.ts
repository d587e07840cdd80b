/** The network's era history (each era's first epoch and slot), from db-sync; the era summaries derive from it. */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { fromSql } from "@src/domain/errors.ts";
import { eraHistory } from "@src/queries/eras.ts";

export const networkEraHistory = (network: Network) =>
  Effect.flatMap(ChainDatabases, (dbs) => eraHistory(dbs.get(network).sql)).pipe(
    Effect.mapError(fromSql(network)),
  );
