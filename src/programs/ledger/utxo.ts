/**
 * Unspent outputs by addresses or by output references, as the chain database holds them (spent-ness per its
 * db-sync mode). The filter always bounds the answer: asking for the whole UTxO set is refused before this runs
 * (`src/jsonrpc/dispatch.ts`, for an upstream too).
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { fromSql } from "@src/domain/errors.ts";
import { unspentOutputs, type UtxoFilter } from "@src/queries/utxo.ts";

export const unspentOutputsOf = (network: Network, filter: UtxoFilter) =>
  Effect.flatMap(ChainDatabases, (dbs) => {
    const db = dbs.get(network);
    return unspentOutputs(db.sql, filter, db.dbSync.spentTracking);
  }).pipe(Effect.mapError(fromSql(network)));
