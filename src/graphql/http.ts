/**
 * `POST /v1/graphql` and `POST /v1/preprod/graphql`: the JSON body `{query, variables?, operationName?}` in,
 * `{data}` or `{errors: [{message, extensions: {path, code}}]}` out. Query errors answer 200 (spec); a body that
 * is not such a JSON object answers 400 in the same error shape, a body over the size limit 413 (the server reads
 * the body under that limit). `X-SQL-Statements` says how many statements the request issued (1 for any query
 * that reads the database).
 */
import { Effect } from "effect";
import { GraphqlSchemas } from "@layers/graphql_schemas.ts";
import type { Tier } from "@layers/key_store.ts";
import type { Network } from "@schemas/network.ts";
import { graphqlError } from "./errors.ts";
import { executeGraphql, type GraphqlRequest } from "./execute.ts";

const answer = (body: string, status: number, statements: number) =>
  new Response(body, {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "x-sql-statements": String(statements),
    },
  });

const badRequest = (message: string, path: string, code: string, status = 400) =>
  answer(JSON.stringify({ errors: [graphqlError(message, path, code)] }), status, 0);

/** The 413 for a body over the limit, in the GraphQL error shape. */
export const graphqlBodyTooLarge = (message: string): Response =>
  badRequest(message, "$", "body-too-large", 413);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The body as a GraphQL request, or the 400 that says what is wrong with it. */
const readRequest = (text: string): GraphqlRequest | Response => {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return badRequest("the body is not valid JSON", "$", "invalid-json");
  }
  if (!isObject(body)) return badRequest("the body must be a JSON object with a query", "$", "parse-failed");
  const { query, variables, operationName } = body;
  if (typeof query !== "string") {
    return badRequest(
      query === undefined ? 'key "query" not found' : '"query" must be a string',
      "$.query",
      "parse-failed",
    );
  }
  if (variables !== undefined && variables !== null && !isObject(variables)) {
    return badRequest('"variables" must be a JSON object', "$.variables", "parse-failed");
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== "string") {
    return badRequest('"operationName" must be a string', "$.operationName", "parse-failed");
  }
  return { query, variables: variables ?? {}, operationName: operationName ?? undefined };
};

export const graphqlHttp = (
  text: string,
  network: Network,
  tier: Tier,
): Effect.Effect<Response, never, GraphqlSchemas> =>
  Effect.gen(function* () {
    const parsed = readRequest(text);
    if (parsed instanceof Response) return parsed;
    const schema = (yield* GraphqlSchemas).get(network);
    const result = yield* executeGraphql(schema, parsed, tier);
    return answer(result.body, result.unavailable ? 503 : 200, result.statements);
  });
