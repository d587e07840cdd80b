/** `queryLedgerState/eraSummaries` and `queryLedgerState/eraStart`, from db-sync's era history. */
import { Effect } from "effect";
import { currentEraStart, eraSummaries } from "@src/domain/era_summaries.ts";
import { networkEraHistory } from "@src/programs/ledger/eras.ts";
import type { MethodProgram } from "../method.ts";

export const summaries: MethodProgram = (network) => Effect.map(networkEraHistory(network), eraSummaries);
export const eraStart: MethodProgram = (network) => Effect.map(networkEraHistory(network), currentEraStart);
