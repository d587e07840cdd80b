/** `queryNetwork/startTime`: the network's system start (genesis), as an ISO-8601 UTC date-time. */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import { systemStart } from "@src/queries/tip.ts";
import type { MethodProgram } from "../method.ts";
import { errors } from "../frame.ts";

export const startTime: MethodProgram = (network) =>
  Effect.flatMap(ChainDatabases, (dbs) => systemStart(dbs.get(network).sql)).pipe(
    Effect.mapError((e) => errors.internal(`chain database: ${e.message}`)),
    Effect.flatMap((start) =>
      start
        ? Effect.succeed(start.toISOString().replace(".000Z", "Z"))
        : Effect.fail(errors.internal("the chain database has no meta row (system start unknown)"))
    ),
  );
