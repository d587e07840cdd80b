/**
 * Protocol parameters in Ogmios' ledger-query shape, from db-sync's `epoch_param`/`cost_model`, cached for an
 * hour per network (spec: "protocol parameters 1 hour"). Served by `GET /api/public/protocol-parameters` and the
 * JSON-RPC method `queryLedgerState/protocolParameters`.
 */
import { Effect, Schema } from "effect";
import { ProtocolParameters } from "@schemas/protocol_parameters.ts";
import { Cache } from "@layers/cache.ts";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { toOgmiosProtocolParameters } from "@src/domain/protocol_parameters.ts";
import { latestEpochParams } from "@src/queries/protocol_parameters.ts";
import { NodeClients } from "@layers/node_client.ts";
import { fromSql, NodeUnavailable, NotFoundError } from "@src/domain/errors.ts";

export const protocolParametersTtl = "1 hour";

export const protocolParameters = Effect.fn("protocolParameters.get")(function* (network: Network) {
  const db = (yield* ChainDatabases).get(network);
  const cache = yield* Cache;
  return yield* cache.getOrCompute(
    `protocol-parameters:${network}`,
    protocolParametersTtl,
    Effect.gen(function* () {
      const row = yield* latestEpochParams(db.sql).pipe(Effect.mapError(fromSql(network)));
      if (!row) {
        return yield* new NotFoundError({
          message:
            `No protocol parameters on ${network} yet (db-sync writes epoch_param only with its ledger enabled)`,
        });
      }
      return toOgmiosProtocolParameters(row);
    }),
  );
});

/**
 * What `GET /api/public/protocol-parameters` serves: the node client's answer (an Ogmios upstream when one is
 * configured, else the chain database through `protocolParameters` above), cached an hour.
 */
export const protocolParametersFromNode = Effect.fn("protocolParameters.fromNode")(
  function* (network: Network) {
    const client = (yield* NodeClients).get(network);
    const cache = yield* Cache;
    return yield* cache.getOrCompute(
      `protocol-parameters:node:${network}`,
      protocolParametersTtl,
      client.query("queryLedgerState/protocolParameters", undefined).pipe(
        Effect.mapError((e) =>
          new NodeUnavailable({ message: `Protocol parameters from ${client.description}: ${e.message}` })
        ),
        // the answer is Ogmios' shape, typed; an upstream answering something else is an upstream fault
        Effect.flatMap((value) =>
          Schema.decodeUnknown(ProtocolParameters)(value).pipe(
            Effect.mapError((e) =>
              new NodeUnavailable({
                message:
                  `Protocol parameters from ${client.description} are not in Ogmios' shape: ${e.message}`,
              })
            ),
          )
        ),
      ),
    );
  },
);
