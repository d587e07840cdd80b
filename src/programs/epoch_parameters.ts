/**
 * An epoch's protocol parameters as db-sync holds them (epoch_param with its cost models), or the newest epoch's:
 * what Blockfrost's `/epochs/{number}/parameters` and `/epochs/latest/parameters` answer. The same rows as the
 * JSON-RPC and REST protocol parameters (src/programs/protocol_parameters.ts) without an upstream, in db-sync's
 * own terms, cached at the tip.
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { fromSql, NotFoundError } from "@src/domain/errors.ts";
import { epochParams } from "@src/queries/protocol_parameters.ts";
import { atTip } from "./at_tip.ts";

export const epochParameters = Effect.fnUntraced(
  function* (network: Network, epoch: number | "latest") {
    const db = (yield* ChainDatabases).get(network);
    const row = yield* atTip(
      network,
      `epoch-params:${epoch}`,
      epochParams(db.sql, epoch === "latest" ? undefined : epoch).pipe(Effect.mapError(fromSql(network))),
    );
    if (!row) {
      return yield* new NotFoundError({
        message: epoch === "latest"
          ? `No protocol parameters on ${network} yet (db-sync writes epoch_param only with its ledger enabled)`
          : `No protocol parameters for epoch ${epoch} on ${network}`,
      });
    }
    return row;
  },
);
