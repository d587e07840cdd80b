/**
 * A network's GraphQL schema as SDL (`GET /v1/graphql/schema.graphql`), what the OpenAPI document links for the
 * GraphQL endpoints' types. The schema is fixed once the service started, so its text is printed once.
 */
import { Effect } from "effect";
import { printSchema } from "graphql";
import { GraphqlSchemas } from "@layers/graphql_schemas.ts";
import type { Network } from "@schemas/network.ts";

const printed = new WeakMap<object, string>();

export const graphqlSdl = (network: Network) =>
  Effect.map(GraphqlSchemas, (schemas) => {
    const { schema } = schemas.get(network);
    let text = printed.get(schema);
    if (text === undefined) printed.set(schema, text = printSchema(schema));
    return text;
  });
