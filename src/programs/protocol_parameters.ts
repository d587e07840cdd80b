/**
 * Protocol parameters in Ogmios' ledger-query shape, cached for an hour per network in one entry (spec:
 * "protocol parameters 1 hour"): the Ogmios upstream's when one is configured for the network, else db-sync's
 * `epoch_param`/`cost_model`. Served by `GET /api/public/protocol-parameters` and, without an upstream, by the
 * JSON-RPC query `queryLedgerState/protocolParameters` (with one, JSON-RPC queries are relayed as they are).
 */
import { Effect, Schema } from "effect";
import { ProtocolParameters } from "@schemas/protocol_parameters.ts";
import { Cache } from "@layers/cache.ts";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { toOgmiosProtocolParameters } from "@src/domain/protocol_parameters.ts";
import { latestEpochParams } from "@src/queries/protocol_parameters.ts";
import { NodeClients } from "@layers/node_client.ts";
import { type DatabaseUnavailable, fromSql, NodeUnavailable, NotFoundError } from "@src/domain/errors.ts";

export const protocolParametersTtl = "1 hour";

const fromChainDatabase = (network: Network) =>
  Effect.gen(function* () {
    const db = (yield* ChainDatabases).get(network);
    const row = yield* latestEpochParams(db.sql).pipe(Effect.mapError(fromSql(network)));
    if (!row) {
      return yield* new NotFoundError({
        message:
          `No protocol parameters on ${network} yet (db-sync writes epoch_param only with its ledger enabled)`,
      });
    }
    return toOgmiosProtocolParameters(row);
  });

const inOgmiosShape = (source: string, value: unknown) =>
  Schema.decodeUnknown(ProtocolParameters)(value).pipe(
    Effect.mapError((e) =>
      new NodeUnavailable({
        message: `Protocol parameters from ${source} are not in Ogmios' shape: ${e.message}`,
      })
    ),
  );

export const protocolParameters = Effect.fnUntraced(function* (network: Network) {
  const client = (yield* NodeClients).get(network);
  const cache = yield* Cache;
  return yield* cache.getOrCompute<
    unknown,
    NotFoundError | DatabaseUnavailable | NodeUnavailable,
    ChainDatabases
  >(
    `protocol-parameters:${network}`,
    protocolParametersTtl,
    client.relay
      ? client.relay("queryLedgerState/protocolParameters", undefined).pipe(
        Effect.mapError((e) =>
          new NodeUnavailable({ message: `Protocol parameters from ${client.description}: ${e.message}` })
        ),
        // an upstream answering something else is an upstream fault, not cached
        Effect.tap((value) => inOgmiosShape(client.description, value)),
      )
      : fromChainDatabase(network),
  );
});

/**
 * What `GET /api/public/protocol-parameters` serves: `protocolParameters`, typed as Ogmios' shape (an answer in
 * any other shape is the node's fault), with "none yet" said as the node's failure (503) as REST always has,
 * plus the spec's `stakeKeyDeposit` and `poolDeposit` (schemas/protocol_parameters.ts RestProtocolParameters).
 */
export const protocolParametersFromNode = (network: Network) =>
  Effect.gen(function* () {
    const client = (yield* NodeClients).get(network);
    const value = yield* protocolParameters(network).pipe(
      Effect.catchTag("NotFoundError", (e) =>
        Effect.fail(
          new NodeUnavailable({ message: `Protocol parameters from ${client.description}: ${e.message}` }),
        )),
    );
    const ogmios = yield* inOgmiosShape(client.description, value);
    return { ...ogmios, ...specNames(ogmios) };
  });

/** The spec names two deposits as Ogmios v5 did; REST answers them beside Ogmios v6's names, equal. */
const specNames = (p: typeof ProtocolParameters.Type) => ({
  stakeKeyDeposit: p.stakeCredentialDeposit,
  poolDeposit: p.stakePoolDeposit,
});
