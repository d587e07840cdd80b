/**
 * `queryNetwork/tip` and `queryLedgerState/tip`: the tip as an Ogmios Point, `{slot, id}` (no height), or
 * "origin" on an empty chain. From db-sync both are the newest block (there is no node ahead of it to ask).
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import { tip } from "@src/queries/tip.ts";
import type { MethodProgram } from "../method.ts";
import { errors } from "../frame.ts";

export const tipPoint: MethodProgram = (network) =>
  Effect.flatMap(ChainDatabases, (dbs) => tip(dbs.get(network).sql)).pipe(
    Effect.map((t) => (t ? { slot: t.slotNo, id: t.hash } : "origin")),
    Effect.mapError((e) => errors.internal(`chain database: ${e.message}`)),
  );
