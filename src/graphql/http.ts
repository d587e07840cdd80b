/**
 * `POST /v1/graphql` and `POST /v1/preprod/graphql`: the JSON body `{query, variables?, operationName?}` in,
 * `{data}` or `{errors: [{message, extensions: {path, code}}]}` out. Query errors answer 200 (spec); a body that
 * is not such a JSON object answers 400 in the same error shape, a body over the size limit 413 (the server reads
 * the body under that limit). `X-SQL-Statements` says how many statements the request issued (1 for any query
 * that reads the database). The router's refusals (401, 403, 429, a key store outage's 503) come in the same
 * shape, with their rate-limit headers (`graphqlRefusal`).
 */
import { Effect, Either } from "effect";
import { GraphqlSchemas } from "@layers/graphql_schemas.ts";
import type { Tier } from "@layers/key_store.ts";
import type { Network } from "@schemas/network.ts";
import type { Refusal } from "@src/http/refusal.ts";
import { graphqlResponse } from "./answer.ts";
import { executeGraphql, type GraphqlRequest } from "./execute.ts";
import { BodyTooLarge, RequestMalformed, toResponse } from "./failures.ts";

/** The router's refusals of a GraphQL request (key, limits, address throttle, key store) in the errors array. */
export const graphqlRefusal = (refusal: Refusal): Response => toResponse(refusal);

/** The 413 for a body over the limit, in the GraphQL error shape. */
export const graphqlBodyTooLarge = (message: string): Response => toResponse(new BodyTooLarge({ message }));

/** The 400 for a request the router cannot read (a repeated query parameter), in the GraphQL error shape. */
export const graphqlBadRequest = (message: string): Response =>
  toResponse(new RequestMalformed({ message, path: "$", code: "bad-request" }));

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const malformed = (message: string, path: string, code: RequestMalformed["code"] = "parse-failed") =>
  Either.left(new RequestMalformed({ message, path, code }));

/** The body as a GraphQL request, or what is wrong with it. */
const readRequest = (text: string): Either.Either<GraphqlRequest, RequestMalformed> => {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return malformed("the body is not valid JSON", "$", "invalid-json");
  }
  if (!isObject(body)) return malformed("the body must be a JSON object with a query", "$");
  const { query, variables, operationName } = body;
  if (typeof query !== "string") {
    return malformed(query === undefined ? 'key "query" not found' : '"query" must be a string', "$.query");
  }
  if (variables !== undefined && variables !== null && !isObject(variables)) {
    return malformed('"variables" must be a JSON object', "$.variables");
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== "string") {
    return malformed('"operationName" must be a string', "$.operationName");
  }
  return Either.right({ query, variables: variables ?? {}, operationName: operationName ?? undefined });
};

export const graphqlHttp = (
  text: string,
  network: Network,
  tier: Tier,
): Effect.Effect<Response, never, GraphqlSchemas> =>
  Effect.gen(function* () {
    const request = yield* readRequest(text);
    const schema = (yield* GraphqlSchemas).get(network);
    const result = yield* executeGraphql(schema, request, tier, network);
    return graphqlResponse(result.body, 200, result.statements);
  }).pipe(Effect.catchAll((failure) => Effect.succeed(toResponse(failure))));
