/** `queryLedgerState/epoch`: the current epoch number (the tip's; a bare integer, as Ogmios answers). */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import { tip } from "@src/queries/tip.ts";
import type { MethodProgram } from "../method.ts";
import { errors } from "../frame.ts";

export const epoch: MethodProgram = (network) =>
  Effect.flatMap(ChainDatabases, (dbs) => tip(dbs.get(network).sql)).pipe(
    Effect.flatMap((t) =>
      t ? Effect.succeed(t.epochNo) : Effect.fail({ code: 2002, message: "The ledger holds no epoch yet." })
    ),
    Effect.catchTag("SqlError", (e) => Effect.fail(errors.internal(`chain database: ${e.message}`))),
  );
