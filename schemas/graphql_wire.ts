/**
 * GraphQL over HTTP as `/v1/graphql` speaks it (spec: GraphQL): the request body and the answer, with the spec's
 * error shape `{message, extensions: {path, code}}`. The schema itself is the served SDL
 * (`/v1/graphql/schema.graphql`), generated at start from the chain database.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema";
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

/**
 * The router's refusals of a GraphQL request, in the GraphQL error shape with the status REST's access envelope
 * has (src/graphql/failures.ts): the code says which (`api-key-required`, `invalid-api-key`, `access-denied`,
 * `rate-limit-exceeded`...) and the message what REST's says.
 */
export class GraphqlUnauthorized extends Schema.Class<GraphqlUnauthorized>("GraphqlUnauthorized")(
  { errors: Schema.Array(GraphqlError) },
  HttpApiSchema.annotations({
    status: 401,
    description: "api-key-required, invalid-api-key (unknown, expired or revoked) or insufficient-credits",
  }),
) {}

export class GraphqlForbidden extends Schema.Class<GraphqlForbidden>("GraphqlForbidden")(
  { errors: Schema.Array(GraphqlError) },
  HttpApiSchema.annotations({
    status: 403,
    description: "access-denied: the key is inactive, its account disabled, or it may not be used here",
  }),
) {}

export class GraphqlTooManyRequests extends Schema.Class<GraphqlTooManyRequests>("GraphqlTooManyRequests")(
  { errors: Schema.Array(GraphqlError) },
  HttpApiSchema.annotations({
    status: 429,
    description: "rate-limit-exceeded (the key's rate or GraphQL rate), daily-quota-exceeded, or " +
      "too-many-auth-failures (this address); Retry-After says when to come back",
  }),
) {}

export class GraphqlServiceUnavailable extends Schema.Class<GraphqlServiceUnavailable>(
  "GraphqlServiceUnavailable",
)(
  { errors: Schema.Array(GraphqlError) },
  HttpApiSchema.annotations({
    status: 503,
    description: "The chain database (unexpected) or the key store (key-store-unavailable) does not answer",
  }),
) {}
