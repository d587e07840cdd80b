/**
 * GraphQL over HTTP as `/v1/graphql` speaks it (spec: GraphQL): the request body and the answer, with the spec's
 * error shape `{message, extensions: {path, code}}`. The schema itself is the served SDL
 * (`/v1/graphql/schema.graphql`), generated at start from the chain database.
 */
import { HttpApiSchema } from "@effect/platform";
import { Schema } from "effect";

export const GraphqlRequest = Schema.Struct({
  query: Schema.String,
  variables: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  operationName: Schema.optional(Schema.NullOr(Schema.String)),
}).annotations({ identifier: "GraphqlRequest" });

export const GraphqlError = Schema.Struct({
  message: Schema.String,
  extensions: Schema.Struct({
    path: Schema.String.annotations({
      description: "a JSON path into the request, e.g. $.selectionSet.block",
    }),
    code: Schema.String,
  }),
}).annotations({ identifier: "GraphqlError" });

export const GraphqlResponse = Schema.Struct({
  data: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  errors: Schema.optional(Schema.Array(GraphqlError)),
}).annotations({
  identifier: "GraphqlResponse",
  description: "`data`, or `errors` (query errors answer 200, as the spec says)",
});

/** A body that is no GraphQL request (not JSON, no `query`): 400 in the GraphQL error shape. */
export class GraphqlBadRequest extends Schema.Class<GraphqlBadRequest>("GraphqlBadRequest")(
  { errors: Schema.Array(GraphqlError) },
  HttpApiSchema.annotations({ status: 400, description: "The body is not a GraphQL request" }),
) {}

/** A body over MAX_BODY_BYTES, refused while it streams: 413 in the GraphQL error shape (`body-too-large`). */
export class GraphqlBodyTooLarge extends Schema.Class<GraphqlBodyTooLarge>("GraphqlBodyTooLarge")(
  { errors: Schema.Array(GraphqlError) },
  HttpApiSchema.annotations({ status: 413, description: "The body is larger than the service accepts" }),
) {}
