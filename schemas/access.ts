/**
 * The key every endpoint but the public ones needs (spec: Authentication), as the OpenAPI document states it:
 * the `apikey` header (src/server/access_http.ts also reads the `apikey` query parameter and `Authorization:
 * Bearer`, in that order) and the refusals the access layer answers with (GraphQL's in its own error shape). Attached to an endpoint with `.middleware(ApiKey)`;
 * the service's router enforces it (src/server/router.ts), this Tag only describes it.
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware";
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity";
import * as OpenApi from "@effect/platform/OpenApi";
import { Schema } from "effect";
import { Forbidden, TooManyRequests, Unauthorized } from "./errors.ts";
import { GraphqlForbidden, GraphqlTooManyRequests, GraphqlUnauthorized } from "./graphql_wire.ts";

export const apiKeySecurity = HttpApiSecurity.apiKey({ key: "apikey", in: "header" }).pipe(
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "An API key (`npm run keys -- create`). Also accepted as the `apikey` (or `apiKey`) query parameter (the " +
      "WebSocket form) or `Authorization: Bearer <key>`; the first of header, query and Bearer that holds one " +
      "is the key, and other Authorization schemes are ignored.",
  ),
);

export class ApiKey extends HttpApiMiddleware.Tag<ApiKey>()("ApiKey", {
  failure: Schema.Union(Unauthorized, Forbidden, TooManyRequests),
  security: { apikey: apiKeySecurity },
}) {}

/** The same key on the GraphQL endpoints, whose refusals come in the GraphQL error shape. */
export class GraphqlApiKey extends HttpApiMiddleware.Tag<GraphqlApiKey>()("GraphqlApiKey", {
  failure: Schema.Union(GraphqlUnauthorized, GraphqlForbidden, GraphqlTooManyRequests),
  security: { apikey: apiKeySecurity },
}) {}
