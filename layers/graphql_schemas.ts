/**
 * `GraphqlSchemas`: per network, the GraphQL schema generated at start from that network's chain database (its
 * catalog plus db-sync's implied references), and the model the compiler reads it with. Built once; a database
 * whose catalog cannot be read stops the start like any other unservable database.
 */
import { Context, Effect, Layer } from "effect";
import type { GraphQLSchema } from "graphql";
import type { Network } from "@schemas/network.ts";
import { buildSchema } from "@src/graphql/build_schema.ts";
import { readSchemaModel, type SchemaModel } from "@src/graphql/schema_model.ts";
import { ChainDatabaseError, ChainDatabases } from "./chain_db.ts";

export interface GraphqlSchema {
  readonly schema: GraphQLSchema;
  readonly model: SchemaModel;
}

export class GraphqlSchemas extends Context.Tag("GraphqlSchemas")<GraphqlSchemas, {
  readonly get: (network: Network) => GraphqlSchema;
}>() {}

export const GraphqlSchemasLive: Layer.Layer<GraphqlSchemas, ChainDatabaseError, ChainDatabases> = Layer
  .effect(
    GraphqlSchemas,
    Effect.gen(function* () {
      const chains = yield* ChainDatabases;
      const built = yield* Effect.forEach(chains.all, (chain) =>
        readSchemaModel(chain.sql).pipe(
          Effect.map((model) => [chain.network, { schema: buildSchema(model), model }] as const),
          Effect.tap(([, s]) =>
            Effect.logDebug(`${chain.network}: GraphQL schema over ${s.model.tables.size} tables and views`)
          ),
          Effect.mapError((e) =>
            new ChainDatabaseError(`${chain.network}: cannot read the catalog for GraphQL: ${e.message}`)
          ),
        ));
      const byNetwork = new Map(built);
      return { get: (network: Network) => byNetwork.get(network)! };
    }),
  );
