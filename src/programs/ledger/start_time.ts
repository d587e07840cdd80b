/** The network's system start (its genesis time), from db-sync's `meta` row. */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { ChainIncomplete, fromSql } from "@src/domain/errors.ts";
import { systemStart } from "@src/queries/tip.ts";

export const networkStartTime = (network: Network) =>
  Effect.flatMap(ChainDatabases, (dbs) => systemStart(dbs.get(network).sql)).pipe(
    Effect.mapError(fromSql(network)),
    Effect.flatMap((start) =>
      start ? Effect.succeed(start) : Effect.fail(
        new ChainIncomplete({ message: "the chain database has no meta row (system start unknown)" }),
      )
    ),
  );
