/**
 * `GraphqlSchemas`: per network, the GraphQL schema generated at start from that network's chain database (its
 * catalog plus db-sync's implied references), the model the compiler reads it with, and where its statements
 * run. On PostgreSQL that is a read-only pool of its own whose sessions carry the GraphQL statement timeout, so
 * a query is one round trip; the embedded PGlite has one session, so there each statement gets the timeout in a
 * transaction of its own (`limitedSessions` false), and so does a database given as several URLs (replicas), whose
 * statements go through the chain's client over all of them. The model is read here (src/queries/schema_model.ts); the
 * graphql-js schema is the GraphQL adapter's to build from it (src/graphql/build_schema.ts), handed in by the
 * composition root's caller, since layers never import a protocol adapter.
 */
import * as Reactivity from "@effect/experimental/Reactivity";
import type { SqlClient } from "@effect/sql/SqlClient";
import { Context, Effect, Layer, Option, Redacted } from "effect";
import type { GraphQLSchema } from "graphql";
import type { Network } from "@schemas/network.ts";
import { readSchemaModel, type SchemaModel } from "@src/queries/schema_model.ts";
import { ChainDatabaseError, ChainDatabases } from "./chain_db.ts";
import { AppConfig, redactUrl } from "./config.ts";
import { scopedAttempt, waitFor } from "./dependencies.ts";
import { makePgSqlClient } from "./sql_pg.ts";

export interface GraphqlSchema {
  readonly schema: GraphQLSchema;
  readonly model: SchemaModel;
  /** Where GraphQL statements run. */
  readonly sql: SqlClient;
  /** True when every session of `sql` already has the statement timeout. */
  readonly limitedSessions: boolean;
  /** The statement time limit (GRAPHQL_TIMEOUT_MS). */
  readonly timeoutMs: number;
}

export class GraphqlSchemas extends Context.Tag("GraphqlSchemas")<GraphqlSchemas, {
  readonly get: (network: Network) => GraphqlSchema;
}>() {}

/** Connections of the GraphQL pool per network (the chain pool has its own). */
const graphqlConnections = 16;

/** Builds a network's executable schema from its model (src/graphql/build_schema.ts). */
export type BuildGraphqlSchema = (model: SchemaModel) => GraphQLSchema;

export const makeGraphqlSchemasLive = (
  buildSchema: BuildGraphqlSchema,
): Layer.Layer<GraphqlSchemas, ChainDatabaseError, ChainDatabases | AppConfig> =>
  Layer.scoped(
    GraphqlSchemas,
    Effect.gen(function* () {
      const chains = yield* ChainDatabases;
      const config = yield* AppConfig;
      const built = yield* Effect.forEach(chains.all, (chain) =>
        Effect.gen(function* () {
          const urls = config.networks[chain.network].databaseUrls;
          // several URLs (replicas): the chain's own client, which spreads statements over the members in use;
          // each statement then gets the timeout in a transaction of its own, as on PGlite
          const url = urls.length === 1 ? Option.some(urls[0]!) : Option.none();
          // on PostgreSQL the catalog read and the pool wait for a slow server like the chain database did
          const { model, sql } = yield* waitFor(
            `${chain.network} chain database (GraphQL pool)`,
            scopedAttempt(Effect.gen(function* () {
              const model = yield* readSchemaModel(chain.sql);
              const sql = Option.isSome(url)
                ? yield* makePgSqlClient({
                  url: Redacted.value(url.value),
                  readOnly: true,
                  statementTimeoutMs: config.graphqlTimeoutMs,
                  // db-sync's epoch view (read while no totals are kept, src/graphql/epoch_source.ts) is
                  // planned as a full recount: JIT compiled for most of a second each time (scale_360)
                  noJit: true,
                  // the epoch view's stand-in (src/graphql/epoch_progress_cache.ts)
                  prepareMarked: true,
                  maxConnections: graphqlConnections,
                  applicationName: `cardano-data-service/${chain.network}/graphql`,
                }).pipe(
                  Effect.provide(Reactivity.layer),
                  Effect.mapError((e) => ({ message: `${redactUrl(url.value)}: ${e.message}` })),
                )
                : chain.sql;
              return { model, sql };
            })),
            { transient: () => urls.length > 0 },
          );
          const schema: GraphqlSchema = {
            schema: buildSchema(model),
            model,
            sql,
            limitedSessions: Option.isSome(url),
            timeoutMs: config.graphqlTimeoutMs,
          };
          yield* Effect.logDebug(
            `${chain.network}: GraphQL schema over ${model.tables.size} tables and views`,
          );
          return [chain.network, schema] as const;
        }).pipe(
          Effect.mapError((e) => new ChainDatabaseError(`${chain.network}: GraphQL: ${e.message}`)),
        ));
      const byNetwork = new Map(built);
      return { get: (network: Network) => byNetwork.get(network)! };
    }),
  );
