/** `queryNetwork/blockHeight`: the tip's block number, or "origin" on an empty chain. */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import { tip } from "@src/queries/tip.ts";
import type { MethodProgram } from "../method.ts";
import { errors } from "../frame.ts";

export const blockHeight: MethodProgram = (network) =>
  Effect.flatMap(ChainDatabases, (dbs) => tip(dbs.get(network).sql)).pipe(
    Effect.map((t) => (t ? t.blockNo : "origin")),
    Effect.mapError((e) => errors.internal(`chain database: ${e.message}`)),
  );
