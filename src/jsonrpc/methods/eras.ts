/** `queryLedgerState/eraSummaries` and `queryLedgerState/eraStart`, from db-sync's era history. */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import { currentEraStart, eraSummaries } from "@src/domain/era_summaries.ts";
import { eraHistory } from "@src/queries/eras.ts";
import type { MethodProgram } from "../method.ts";
import { errors } from "../frame.ts";

const history = (network: "mainnet" | "preprod") =>
  Effect.flatMap(ChainDatabases, (dbs) => eraHistory(dbs.get(network).sql)).pipe(
    Effect.mapError((e) => errors.internal(`chain database: ${e.message}`)),
  );

export const summaries: MethodProgram = (network) => Effect.map(history(network), eraSummaries);
export const eraStart: MethodProgram = (network) => Effect.map(history(network), currentEraStart);
