/**
 * Runs one GraphQL request: parse, decide its cost for the tier (depth, rows, field values, root fields,
 * introspection: cost.ts) before anything else, validate against the network's generated schema, coerce the
 * variables, compile to one SQL statement, let the planner judge its filters on chain-sized tables
 * (plan_guard.ts), run it under a statement timeout, and answer introspection from the schema in memory.
 * Returns the response body as JSON text and how many SQL statements it issued (1 for any query that reads the
 * database, 2 or 3 when the epoch view's kept totals had to be renewed on the way, 0 for introspection alone;
 * the planner's EXPLAINs and the totals' own statements are not counted).
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect, Either } from "effect";
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
import type { Network } from "@schemas/network.ts";
import { type CompiledQuery, compileQuery } from "./compile.ts";
import { pathOf } from "./errors.ts";
import { refuseCostly } from "./cost.ts";
import {
  type CostOverBudget,
  fromStatementFailure,
  type GraphqlFailure,
  type Issue,
  QueryInvalid,
  QueryRejected,
} from "./failures.ts";
import { refuseUnselective } from "./plan_guard.ts";
import {
  advanceEpochSources,
  epochSources,
  keptEpochProgress,
  preparedStandInText,
  renewEpochSources,
} from "./epoch_progress_cache.ts";
import { isStaleEpochTotals } from "./epoch_source.ts";
import type { RowSources } from "./selection.ts";

export interface GraphqlRequest {
  readonly query: string;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly operationName: string | undefined;
}

/** A query's answer; its failures are the tagged errors of failures.ts. */
export interface GraphqlAnswer {
  /** `{"data": ...}`, as JSON text. */
  readonly body: string;
  readonly statements: number;
}

/** Far beyond any hand-written or generated query; stops token floods before validation runs. */
const maxTokens = 20_000;

interface Prepared {
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  readonly fragments: Record<string, FragmentDefinitionNode>;
  readonly variables: Record<string, unknown>;
}

/** A query text parsed (or why not) and, once its cost allowed it, validated. */
interface Checked {
  readonly document?: DocumentNode;
  readonly parseError?: QueryInvalid;
  validationIssues?: ReadonlyArray<Issue>;
}

const invalid = (...issues: ReadonlyArray<Issue>) => new QueryInvalid({ code: "validation-failed", issues });

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
    checked = {
      parseError: new QueryInvalid({ code: "parse-failed", issues: [{ message, path: "$.query" }] }),
    };
  }
  if (query.length > maxCachedQueryLength) return checked;
  if (cache.size >= maxCheckedDocuments) cache.clear();
  cache.set(query, checked);
  return checked;
};

const validated = (schema: GraphqlSchema, checked: Checked, document: DocumentNode) =>
  checked.validationIssues ??= validate(schema.schema, document).map((e) => ({
    message: e.message,
    path: pathOf(document, e.nodes?.[0]),
  }));

/**
 * Everything before the database: the documented errors for what is wrong with the query. The cost comes
 * before validation: a document too large to run is refused before the validator spends time on it.
 */
const prepare = (
  schema: GraphqlSchema,
  request: GraphqlRequest,
  tier: Tier,
): Either.Either<Prepared, QueryInvalid | CostOverBudget> => {
  const checked = parsed(schema, request.query);
  if (checked.parseError) return Either.left(checked.parseError);
  const document = checked.document!;
  const operation = getOperationAST(document, request.operationName);
  if (!operation) {
    const message = request.operationName
      ? `no operation named "${request.operationName}" in the query`
      : "the query has several operations: name the one to run in operationName";
    return Either.left(invalid({ message, path: "$.operationName" }));
  }
  const costly = refuseCostly(schema.schema, schema.model, document, operation, request.variables, tier);
  if (costly) return Either.left(costly);
  const issues = validated(schema, checked, document);
  if (issues.length > 0) return Either.left(invalid(...issues));
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const coerced = getVariableValues(schema.schema, operation.variableDefinitions ?? [], request.variables);
  if (coerced.errors) {
    return Either.left(invalid(...coerced.errors.map((e) => ({
      message: e.message,
      path: pathOf(document, e.nodes?.[0]),
    }))));
  }
  return Either.right({ document, operation, fragments, variables: coerced.coerced });
};

/**
 * The one SQL statement for the query, or the compiler's refusal. The compile walk is recursive and leaves it
 * by throwing its refusal (or graphql-js's, for a value it cannot read); here both become typed failures.
 */
const compile = (
  schema: GraphqlSchema,
  request: GraphqlRequest,
  { document, operation, fragments, variables }: Prepared,
  sources: RowSources | undefined,
): Either.Either<CompiledQuery, QueryRejected | QueryInvalid> => {
  try {
    return Either.right(
      compileQuery(
        schema.schema,
        schema.model,
        operation,
        fragments,
        variables,
        request.variables,
        sources,
      ),
    );
  } catch (e) {
    if (e instanceof QueryRejected) return Either.left(e);
    if (e instanceof GraphQLError) {
      return Either.left(invalid({ message: e.message, path: pathOf(document, e.nodes?.[0]) }));
    }
    throw e;
  }
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
    // without JIT, as the GraphQL pool's sessions (layers/graphql_schemas.ts)
    yield* connection.executeUnprepared(
      `begin read only; set local statement_timeout = ${Math.round(timeoutMs)}; set local jit = off`,
      [],
      undefined,
    );
    return yield* connection.execute(text, params, undefined).pipe(
      Effect.ensuring(Effect.ignore(connection.executeUnprepared("commit", [], undefined))),
    ) as Effect.Effect<ReadonlyArray<{ data: string }>, SqlError>;
  }));

export const executeGraphql: (
  schema: GraphqlSchema,
  request: GraphqlRequest,
  tier: Tier,
  network: Network,
) => Effect.Effect<GraphqlAnswer, GraphqlFailure> = Effect.fnUntraced(
  function* (schema: GraphqlSchema, request: GraphqlRequest, tier: Tier, network: Network) {
    const prepared = yield* prepare(schema, request, tier);
    const { operation, fragments } = prepared;
    let used = keptEpochProgress(schema.sql);
    let sources = epochSources(schema.sql);
    let compiled = yield* compile(schema, request, prepared, sources);
    // db-sync's epoch view from kept totals (epoch_progress_cache.ts): advanced first when they are old
    if (compiled.read.has("epoch") && (yield* advanceEpochSources(schema.sql))) {
      used = keptEpochProgress(schema.sql);
      sources = epochSources(schema.sql);
      compiled = yield* compile(schema, request, prepared, sources);
    }
    yield* refuseUnselective(schema.sql, compiled.probes, tier);
    let data: Record<string, unknown> | string = "{}";
    let statements = 0;
    if (compiled.sql !== undefined) {
      const statement = (c: CompiledQuery, sources: RowSources | undefined) =>
        Effect.suspend(() => {
          statements++;
          const text = sources !== undefined && c.read.has("epoch") ? preparedStandInText(c.sql!) : c.sql!;
          return schema.limitedSessions
            ? schema.sql.unsafe<{ data: string }>(text, c.params as Array<unknown>)
            : runStatement(schema.sql, text, c.params, schema.timeoutMs);
        });
      // the same query compiled a moment ago with other row sources, and run
      const rerun = (sources: RowSources | undefined) =>
        Effect.flatMap(
          Effect.orDie(compile(schema, request, prepared, sources)),
          (c) => statement(c, sources),
        );
      // kept epoch totals that no longer hold (a rollback): advanced and run again, then the view itself
      const readsKeptTotals = sources !== undefined && compiled.read.has("epoch");
      const rows = yield* statement(compiled, sources).pipe(
        Effect.catchIf((e) => readsKeptTotals && isStaleEpochTotals(e), () =>
          Effect.gen(function* () {
            yield* renewEpochSources(schema.sql, used);
            return yield* rerun(epochSources(schema.sql)).pipe(
              Effect.catchIf(isStaleEpochTotals, () => rerun(undefined)),
            );
          })),
        Effect.tapError((e) => Effect.logWarning(`GraphQL statement failed: ${e.message}`)),
        Effect.mapError(fromStatementFailure(network, schema.timeoutMs)),
      );
      data = rows[0]!.data;
    }
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
    if (own.length > 0) return yield* invalid(...own.map((e) => ({ message: e.message, path: "$.query" })));
    const fromSql = typeof data === "string" ? JSON.parse(data) as Record<string, unknown> : data;
    const merged: Record<string, unknown> = {};
    for (const key of compiled.keys) {
      merged[key] = key in fromSql ? fromSql[key] : introspected.data?.[key];
    }
    return { body: JSON.stringify({ data: merged }), statements };
  },
);
