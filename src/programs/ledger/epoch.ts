/** The current epoch number: the tip's, read from the chain database. */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { fromSql, NotFoundError } from "@src/domain/errors.ts";
import { tip } from "@src/queries/tip.ts";

export const currentEpoch = (network: Network) =>
  Effect.flatMap(ChainDatabases, (dbs) => tip(dbs.get(network).sql)).pipe(
    Effect.mapError(fromSql(network)),
    Effect.flatMap((t) =>
      t
        ? Effect.succeed(t.epochNo)
        : Effect.fail(new NotFoundError({ message: "The ledger holds no epoch yet." }))
    ),
  );
