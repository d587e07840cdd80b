/**
 * Runs one GraphQL request: parse, decide its cost for the tier (depth, rows, field values, root fields,
 * introspection: cost.ts) before anything else, validate against the network's generated schema, coerce the
 * variables, compile to one SQL statement, let the planner judge its filters on chain-sized tables
 * (plan_guard.ts), run it under a statement timeout, and answer introspection from the schema in memory.
 * Returns the response body as JSON text and how many SQL statements it issued (1 for any query that reads the
 * database, 0 for introspection alone; the planner's EXPLAINs are not counted).
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import {
  type DocumentNode,
  execute as executeIntrospection,
  type FragmentDefinitionNode,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  Kind,
  type OperationDefinitionNode,
  parse,
  validate,
} from "graphql";
import type { Tier } from "@layers/key_store.ts";
import type { GraphqlSchema } from "@layers/graphql_schemas.ts";
import { compileQuery } from "./compile.ts";
import { type GraphqlError, graphqlError, pathOf } from "./errors.ts";
import { refuseCostly } from "./cost.ts";
import { refuseUnselective } from "./plan_guard.ts";
import { QueryRejected } from "./sql_text.ts";

export interface GraphqlRequest {
  readonly query: string;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly operationName: string | undefined;
}

export interface GraphqlAnswer {
  /** `{"data": ...}` or `{"errors": [...]}`, as JSON text. */
  readonly body: string;
  readonly statements: number;
  /** The database could not answer (an outage, not the query's fault): HTTP 503 with the errors array. */
  readonly unavailable?: boolean;
}

const failed = (errors: ReadonlyArray<GraphqlError>): GraphqlAnswer => ({
  body: JSON.stringify({ errors }),
  statements: 0,
});

/** Far beyond any hand-written or generated query; stops token floods before validation runs. */
const maxTokens = 20_000;

type Prepared =
  | { readonly errors: ReadonlyArray<GraphqlError> }
  | {
    readonly document: DocumentNode;
    readonly operation: OperationDefinitionNode;
    readonly fragments: Record<string, FragmentDefinitionNode>;
    readonly variables: Record<string, unknown>;
  };

/** A query text parsed (or why not) and, once its cost allowed it, validated. */
interface Checked {
  readonly document?: DocumentNode;
  readonly parseErrors?: ReadonlyArray<GraphqlError>;
  validationErrors?: ReadonlyArray<GraphqlError>;
}

/**
 * Parsed and validated documents by query text, per schema. Clients send the same query text again and again
 * with other variables, and validation costs more CPU than compiling; what it finds depends on the text alone.
 */
const checkedDocuments = new WeakMap<GraphqlSchema, Map<string, Checked>>();
const maxCheckedDocuments = 1000;
/** Longer texts are checked every time, so the cache stays small (1000 × 16 KiB at most). */
const maxCachedQueryLength = 16 * 1024;

const parsed = (schema: GraphqlSchema, query: string): Checked => {
  let cache = checkedDocuments.get(schema);
  if (!cache) checkedDocuments.set(schema, cache = new Map());
  const cached = cache.get(query);
  if (cached) return cached;
  let checked: Checked;
  try {
    checked = { document: parse(query, { maxTokens }) };
  } catch (e) {
    const message = e instanceof GraphQLError ? e.message : String(e);
    checked = { parseErrors: [graphqlError(message, "$.query", "parse-failed")] };
  }
  if (query.length > maxCachedQueryLength) return checked;
  if (cache.size >= maxCheckedDocuments) cache.clear();
  cache.set(query, checked);
  return checked;
};

const validated = (schema: GraphqlSchema, checked: Checked, document: DocumentNode) =>
  checked.validationErrors ??= validate(schema.schema, document).map((e) =>
    graphqlError(e.message, pathOf(document, e.nodes?.[0]), "validation-failed")
  );

/**
 * Everything before the database: the documented errors for what is wrong with the query. The cost comes
 * before validation: a document too large to run is refused before the validator spends time on it.
 */
const prepare = (schema: GraphqlSchema, request: GraphqlRequest, tier: Tier): Prepared => {
  const checked = parsed(schema, request.query);
  if (checked.parseErrors) return { errors: checked.parseErrors };
  const document = checked.document!;
  const operation = getOperationAST(document, request.operationName);
  if (!operation) {
    const message = request.operationName
      ? `no operation named "${request.operationName}" in the query`
      : "the query has several operations: name the one to run in operationName";
    return { errors: [graphqlError(message, "$.operationName", "validation-failed")] };
  }
  const costly = refuseCostly(schema.schema, schema.model, document, operation, request.variables, tier);
  if (costly) return { errors: [graphqlError(costly.message, costly.path, "validation-failed")] };
  const invalid = validated(schema, checked, document);
  if (invalid.length > 0) return { errors: invalid };
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const coerced = getVariableValues(schema.schema, operation.variableDefinitions ?? [], request.variables);
  if (coerced.errors) {
    return {
      errors: coerced.errors.map((e) =>
        graphqlError(e.message, pathOf(document, e.nodes?.[0]), "validation-failed")
      ),
    };
  }
  return { document, operation, fragments, variables: coerced.coerced };
};

/**
 * The statement under a timeout that ends with its transaction, for sessions that do not carry the timeout (the
 * embedded PGlite's single session): BEGIN and SET LOCAL in one round trip (a constant text, no parameters),
 * the statement, then COMMIT (a rollback when the statement failed).
 */
export const runStatement = (
  sql: SqlClient,
  text: string,
  params: ReadonlyArray<unknown>,
  timeoutMs: number,
) =>
  Effect.scoped(Effect.gen(function* () {
    const connection = yield* sql.reserve;
    yield* connection.executeUnprepared(
      `begin read only; set local statement_timeout = ${Math.round(timeoutMs)}`,
      [],
      undefined,
    );
    return yield* connection.execute(text, params, undefined).pipe(
      Effect.ensuring(Effect.ignore(connection.executeUnprepared("commit", [], undefined))),
    ) as Effect.Effect<ReadonlyArray<{ data: string }>, SqlError>;
  }));

const isTimeout = (e: { readonly cause?: unknown; readonly message: string }) =>
  /statement timeout/i.test(e.message) ||
  /statement timeout/i.test(String((e.cause as Error)?.message ?? ""));

/** SQLSTATE class 22 (data exception): a value PostgreSQL refuses, such as 2026-02-30; the query's fault. */
const dataException = (e: { readonly cause?: unknown }): string | undefined => {
  const cause = e.cause as { code?: unknown; message?: unknown } | undefined;
  return typeof cause?.code === "string" && cause.code.startsWith("22") ? String(cause.message) : undefined;
};

export const executeGraphql: (
  schema: GraphqlSchema,
  request: GraphqlRequest,
  tier: Tier,
) => Effect.Effect<GraphqlAnswer> = Effect.fn("graphql.execute")(
  function* (schema: GraphqlSchema, request: GraphqlRequest, tier: Tier) {
    const prepared = prepare(schema, request, tier);
    if ("errors" in prepared) return failed(prepared.errors);
    const { document, operation, fragments, variables } = prepared;
    let compiled;
    try {
      compiled = compileQuery(
        schema.schema,
        schema.model,
        operation,
        fragments,
        variables,
        request.variables,
      );
    } catch (e) {
      if (e instanceof QueryRejected) return failed([graphqlError(e.message, e.path, e.code)]);
      if (e instanceof GraphQLError) {
        return failed([graphqlError(e.message, pathOf(document, e.nodes?.[0]), "validation-failed")]);
      }
      throw e;
    }
    const unselective = yield* refuseUnselective(schema.sql, compiled.probes, tier);
    if (unselective) return failed([unselective]);
    let data: Record<string, unknown> | string = "{}";
    if (compiled.sql !== undefined) {
      const statement = schema.limitedSessions
        ? schema.sql.unsafe<{ data: string }>(compiled.sql, compiled.params as Array<unknown>)
        : runStatement(schema.sql, compiled.sql, compiled.params, schema.timeoutMs);
      const rows = yield* statement.pipe(
        Effect.map((r) => ({ ok: r[0]!.data })),
        Effect.catchAll((e) =>
          Effect.as(
            Effect.logWarning(`GraphQL statement failed: ${e.message}`),
            dataException(e) !== undefined
              ? { error: graphqlError(`a value was refused: ${dataException(e)}`, "$", "validation-failed") }
              : isTimeout(e)
              ? {
                error: graphqlError(
                  `the query ran longer than ${
                    schema.timeoutMs / 1000
                  } s and was cancelled: filter on indexed ` +
                    `columns or ask for fewer rows`,
                  "$",
                  "statement-timeout",
                ),
              }
              : {
                error: graphqlError(
                  "the chain database could not answer; try again shortly",
                  "$",
                  "unexpected",
                ),
              },
          )
        ),
      );
      if ("error" in rows) {
        return {
          ...failed([rows.error]),
          statements: 1,
          unavailable: rows.error.extensions.code === "unexpected",
        };
      }
      data = rows.ok;
    }
    const statements = compiled.sql === undefined ? 0 : 1;
    if (compiled.introspection.length === 0) return { body: `{"data":${data}}`, statements };
    // introspection answers from the schema in memory; merged with the database's part in query order
    const onlyIntrospection: OperationDefinitionNode = {
      ...operation,
      selectionSet: {
        kind: Kind.SELECTION_SET,
        selections: operation.selectionSet.selections.filter((s) =>
          s.kind !== Kind.FIELD || compiled.introspection.includes(s.alias?.value ?? s.name.value)
        ),
      },
    };
    const introspected = yield* Effect.promise(async () =>
      await executeIntrospection({
        schema: schema.schema,
        document: {
          kind: Kind.DOCUMENT,
          definitions: [onlyIntrospection, ...Object.values(fragments)],
        },
        variableValues: request.variables,
      })
    );
    // fragments at the root may also name database fields, which this pass leaves null: only its own errors count
    const own = (introspected.errors ?? []).filter((e) =>
      compiled.introspection.includes(String(e.path?.[0]))
    );
    if (own.length > 0) {
      return failed(own.map((e) => graphqlError(e.message, "$.query", "validation-failed")));
    }
    const fromSql = typeof data === "string" ? JSON.parse(data) as Record<string, unknown> : data;
    const merged: Record<string, unknown> = {};
    for (const key of compiled.keys) {
      merged[key] = key in fromSql ? fromSql[key] : introspected.data?.[key];
    }
    return { body: JSON.stringify({ data: merged }), statements };
  },
);
