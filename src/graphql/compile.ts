/**
 * A validated GraphQL query as ONE parameterised SQL statement that builds the whole `data` object as JSON in
 * PostgreSQL: lists are json_agg over a LIMITed subquery, object relationships correlated subqueries on the
 * referenced key, array relationships correlated subqueries on the referencing column, aggregates count/sum/
 * avg/min/max over the filtered rows. Never a statement per row or per relationship, and nothing from the query
 * text is spliced into SQL: values and response keys are parameters, identifiers come from the schema model.
 */
import {
  type FieldNode,
  type FragmentDefinitionNode,
  getArgumentValues,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";
import { type BoolExp, hasIndexedFilter, joinSql, matchesAtMostOneRow, whereSql } from "./filters.ts";
import { defaultLimit, indexedColumns, indexedForRange, isLarge, maxLimit, maxOffset } from "./limits.ts";
import type { PlanProbe } from "./plan_guard.ts";
import { outputSql } from "./scalars.ts";
import type { Relationship, ScalarName, SchemaModel, TableModel } from "@src/queries/schema_model.ts";
import { QueryRejected } from "./failures.ts";
import { column, ident, jsonObject, SqlBuilder } from "./sql_text.ts";
import { aggregateFields } from "./aggregates.ts";
import { orderTerms } from "./order_by.ts";
import {
  asList,
  collect,
  type Context,
  fieldDef,
  type Fields,
  rawArgument,
  type RowSources,
  subfields,
} from "./selection.ts";

export interface CompiledQuery {
  /** One statement returning one row with one text column `data` (a JSON object), or undefined when no root
   * field reads the database (introspection only). */
  readonly sql: string | undefined;
  readonly params: ReadonlyArray<unknown>;
  /** Root response keys answered by introspection (`__schema`, `__type`, `__typename`), in query order. */
  readonly introspection: ReadonlyArray<string>;
  /** All root response keys in query order. */
  readonly keys: ReadonlyArray<string>;
  /** The root accesses to chain-sized tables whose filter the planner must judge before the statement runs. */
  readonly probes: ReadonlyArray<PlanProbe>;
  /** The relations read as lists or aggregates. */
  readonly read: ReadonlySet<string>;
}

interface ListArgs {
  readonly where?: BoolExp;
  readonly order_by?: ReadonlyArray<Readonly<Record<string, unknown>>>;
  readonly limit?: number | null;
  readonly offset?: number | null;
  readonly distinct_on?: ReadonlyArray<string>;
}

interface Rows {
  /** `select ... from T alias where ... order by ... limit ...` with the row JSON as `j` and sort keys s0, s1.. */
  readonly sql: string;
  /** The json_agg ORDER BY over the subquery's output. */
  readonly aggOrder: string;
}

/**
 * Why a chain-sized table may not be read this way without a filter: undefined when an index order (or none)
 * and a limit bound the rows read.
 */
const unfilteredProblem = (
  table: TableModel,
  terms: ReadonlyArray<{ readonly column?: string }>,
  args: ListArgs,
  aggregate: boolean,
): string | undefined => {
  const first = terms[0];
  const orderedByIndex = terms.length === 0 ||
    (first?.column !== undefined && indexedForRange(table, first.column));
  const bounded = aggregate ? args.limit != null : true;
  if (orderedByIndex && bounded && (args.distinct_on ?? []).length === 0) return undefined;
  return `${table.name} is a chain-sized table: filter it with _eq, _in or a range on an indexed column ` +
    `(${indexedColumns(table)})${aggregate ? ", or set a limit" : ""}` +
    `${!orderedByIndex ? ", or order it by an indexed column" : ""}`;
};

/**
 * An equality on `c` ordered by another column `o` of a chain-sized table with a btree index on (c, o), such as
 * an epoch's blocks by block_no: the same rows in the same order, written so the planner can only take them
 * from that index. The planner expects the rows of one `c` spread evenly over the table, so through `o`'s own
 * index it expects to find the first ones soon, while they sit together (an epoch's blocks) and that walk reads
 * every row before them (all the blocks of the later epochs). So the equality becomes `c >= v and c <= v` (the
 * same rows; an equality would let the planner drop `c` from the order as constant) and the order starts with
 * `c` in the first term's direction (constant over those rows, so the same order), which (c, o) gives and o's
 * own index does not. Undefined when the query is not of that shape.
 */
const pairIndexOrder = (
  table: TableModel,
  where: BoolExp | undefined,
  terms: ReadonlyArray<{ readonly column?: string }>,
): { readonly column: string; readonly where: BoolExp } | undefined => {
  const ordered = terms[0]?.column;
  if (!where || ordered === undefined || !isLarge(table)) return undefined;
  for (const [c, ops] of Object.entries(where)) {
    if (c === ordered || !table.columns.has(c) || !table.btreePairs.has(`${c}\u0000${ordered}`)) continue;
    const { _eq: value, ...rest } = (ops ?? {}) as BoolExp;
    if (value === undefined || value === null || "_gte" in rest || "_lte" in rest) continue;
    return { column: c, where: { ...where, [c]: { ...rest, _gte: value, _lte: value } } };
  }
  return undefined;
};

/**
 * Checks the limits and the index rule, and writes the row source of a list or aggregate over `table`
 * (`join`: the correlation to the parent row, for array relationships). A root access to a chain-sized table
 * through a filter is also written as a probe (the same rows, no projection) for the plan guard.
 */
const rowSource = (
  ctx: Context,
  table: TableModel,
  node: FieldNode,
  args: ListArgs,
  path: string,
  projection: (alias: string) => ReadonlyArray<string>,
  join: { readonly relationship: Relationship; readonly outer: string } | undefined,
  aggregate: boolean,
): Rows => {
  const alias = ctx.b.alias();
  if (args.limit != null && (args.limit < 0 || args.limit > maxLimit)) {
    throw new QueryRejected(`limit must be from 0 to ${maxLimit}, got ${args.limit}`, `${path}.args.limit`);
  }
  if (args.offset != null && (args.offset < 0 || args.offset > maxOffset)) {
    throw new QueryRejected(
      `offset must be from 0 to ${maxOffset}, got ${args.offset}; page with a where on an indexed column instead`,
      `${path}.args.offset`,
    );
  }
  const terms = asList(args.order_by).flatMap((o, i) =>
    orderTerms(ctx, table, alias, o, asList(rawArgument(ctx, node, "order_by"))[i])
  );
  const distinct = args.distinct_on ?? [];
  if (distinct.length > 0) {
    const leading = terms.slice(0, distinct.length).map((t) => t.column);
    if (terms.length === 0) {
      terms.push(
        ...distinct.map((c) => ({ expr: column(alias, c), direction: "asc nulls last", column: c })),
      );
    } else if (!distinct.every((c) => leading.includes(c)) || leading.length < distinct.length) {
      throw new QueryRejected(
        `"distinct_on" columns must match the initial "order_by" columns`,
        `${path}.args.distinct_on`,
      );
    }
  }
  if (join) {
    const local = join.relationship.on[0]![1];
    if (isLarge(table) && !indexedForRange(table, local) && !table.hashed.has(local)) {
      throw new QueryRejected(
        `${join.relationship.name} needs an index on ${table.name}(${local}), which this database lacks ` +
          `(see schemas/db/extra_indexes.sql)`,
        path,
      );
    }
  } else if (isLarge(table)) {
    const problem = unfilteredProblem(table, terms, args, aggregate);
    if (!hasIndexedFilter(ctx.model, table, args.where)) {
      if (problem) throw new QueryRejected(problem, path);
    } else if (ctx.probes && !matchesAtMostOneRow(table, args.where)) {
      // the same row source on a builder of its own: a statement the planner can be asked about alone
      const b = new SqlBuilder();
      const probe = rowSource(
        { ...ctx, b, probes: undefined },
        table,
        node,
        args,
        path,
        () => ["1 as one"],
        undefined,
        aggregate,
      );
      ctx.probes.push({ table: table.name, path, sql: probe.sql, params: b.params, withoutFilter: problem });
    }
  }
  ctx.read?.add(table.name);
  const paired = join || distinct.length > 0 ? undefined : pairIndexOrder(table, args.where, terms);
  if (paired) terms.unshift({ expr: column(alias, paired.column), direction: terms[0]!.direction });
  const where = paired?.where ?? args.where;
  const conditions = [
    ...(join ? [joinSql(join.relationship, join.outer, alias)] : []),
    ...(where ? [whereSql(ctx.b, ctx.model, table, alias, where, `${path}.args.where`)] : []),
  ];
  const limit = args.limit ?? (aggregate ? undefined : defaultLimit);
  const sql = [
    `select ${
      distinct.length > 0 ? `distinct on (${distinct.map((c) => column(alias, c)).join(", ")}) ` : ""
    }`,
    [...projection(alias), ...terms.map((t, i) => `${t.expr} as s${i}`)].join(", "),
    ` from ${ctx.sources?.get(table.name)?.(ctx.b) ?? ident(table.name)} ${alias}`,
    conditions.length > 0 ? ` where ${conditions.map((c) => `(${c})`).join(" and ")}` : "",
    terms.length > 0 ? ` order by ${terms.map((t) => `${t.expr} ${t.direction}`).join(", ")}` : "",
    limit !== undefined ? ` limit ${ctx.b.param(String(limit))}::int8` : "",
    args.offset ? ` offset ${ctx.b.param(String(args.offset))}::int8` : "",
  ].join("");
  return { sql, aggOrder: terms.map((t, i) => `r.s${i} ${t.direction}`).join(", ") };
};

/** A JSON array of the rows of `table` selected by `fields`. */
const listSql = (
  ctx: Context,
  table: TableModel,
  type: GraphQLObjectType,
  node: FieldNode,
  args: ListArgs,
  fields: Fields,
  path: string,
  join?: { readonly relationship: Relationship; readonly outer: string },
): string => {
  const source = rowSource(
    ctx,
    table,
    node,
    args,
    path,
    (alias) => [`${rowJson(ctx, table, type, alias, fields, path)} as j`],
    join,
    false,
  );
  const order = source.aggOrder ? ` order by ${source.aggOrder}` : "";
  return `(select coalesce(json_agg(r.j${order}), '[]'::json) from (${source.sql}) r)`;
};

/** Stands for the nodes array until the row source (and its order) is known. */
const nodesMarker = "\u0000nodes";

/** `T_aggregate`: `aggregate { count sum {..} avg {..} min {..} max {..} }` over the filtered rows, and `nodes`. */
const aggregateSql = (
  ctx: Context,
  table: TableModel,
  type: GraphQLObjectType,
  node: FieldNode,
  args: ListArgs,
  fields: Fields,
  path: string,
  join?: { readonly relationship: Relationship; readonly outer: string },
): string => {
  const used = new Map<string, string>(); // column -> its name in the row source (c0, c1, ...)
  const input = (c: string) => {
    if (!used.has(c)) used.set(c, `c${used.size}`);
    return `r.${used.get(c)}`;
  };
  const pairs: Array<readonly [string, string]> = [];
  let nodesNeeded = false;
  for (const [key, nodes] of fields) {
    const name = nodes[0]!.name.value;
    const here = `${path}.selectionSet.${key}`;
    if (name === "__typename") {
      pairs.push([key, `${ctx.b.param(type.name)}::text`]);
    } else if (name === "nodes") {
      nodesNeeded = true;
      pairs.push([key, nodesMarker]);
    } else if (name === "aggregate") {
      const fieldsType = fieldDef(type, "aggregate", here).type as GraphQLObjectType;
      pairs.push([key, aggregateFields(ctx, table, fieldsType, subfields(ctx, nodes), here, input)]);
    } else {
      throw new QueryRejected(`field ${name} not found in type: ${type.name}`, here);
    }
  }
  // nodes without a limit still get the default one; the aggregate then covers those rows only, so say so
  if (nodesNeeded && args.limit == null) {
    throw new QueryRejected(
      `nodes of ${table.name}_aggregate need a limit (at most ${maxLimit}), which the aggregate then covers too`,
      `${path}.args.limit`,
    );
  }
  const objectType = ctx.schema.getType(table.name) as GraphQLObjectType;
  const nodeFields = new Map<string, Array<FieldNode>>();
  for (const nodes of fields.values()) {
    if (nodes[0]!.name.value === "nodes") {
      for (const [k, v] of subfields(ctx, nodes)) nodeFields.set(k, v);
    }
  }
  const source = rowSource(
    ctx,
    table,
    node,
    args,
    path,
    (alias) => [
      ...(nodesNeeded ? [`${rowJson(ctx, table, objectType, alias, nodeFields, `${path}.nodes`)} as j`] : []),
      ...[...used].map(([c, name]) => `${column(alias, c)} as ${name}`),
      ...(nodesNeeded || used.size > 0 ? [] : ["1 as one"]),
    ],
    join,
    true,
  );
  const nodesSql = `coalesce(json_agg(r.j${
    source.aggOrder ? ` order by ${source.aggOrder}` : ""
  }), '[]'::json)`;
  const filled = pairs.map(([k, v]) => [k, v === nodesMarker ? nodesSql : v] as const);
  return `(select ${jsonObject(ctx.b, filled)} from (${source.sql}) r)`;
};

/** The JSON object of one row of `table` (under `alias`) with the fields asked for. */
const rowJson = (
  ctx: Context,
  table: TableModel,
  type: GraphQLObjectType,
  alias: string,
  fields: Fields,
  path: string,
): string => {
  const pairs: Array<readonly [string, string]> = [];
  for (const [key, nodes] of fields) {
    const node = nodes[0]!;
    const name = node.name.value;
    const here = `${path}.selectionSet.${key}`;
    if (name === "__typename") {
      pairs.push([key, `${ctx.b.param(type.name)}::text`]);
      continue;
    }
    const col = table.columns.get(name);
    if (col) {
      pairs.push([key, outputSql(col.scalar, column(alias, name))]);
      continue;
    }
    const def = fieldDef(type, name, here);
    const isAggregate = name.endsWith("_aggregate") && !table.relationships.has(name);
    const r = table.relationships.get(isAggregate ? name.slice(0, -"_aggregate".length) : name);
    if (!r) throw new QueryRejected(`field ${name} not found in type: ${type.name}`, here);
    const target = ctx.model.tables.get(r.target)!;
    const targetType = ctx.schema.getType(r.target) as GraphQLObjectType;
    const sub = subfields(ctx, nodes);
    if (r.kind === "object") {
      const inner = ctx.b.alias();
      const row = rowJson(ctx, target, targetType, inner, sub, here);
      pairs.push([
        key,
        `(select ${row} from ${ident(target.name)} ${inner} where ${joinSql(r, alias, inner)})`,
      ]);
      continue;
    }
    const args = getArgumentValues(def, node, ctx.variables) as ListArgs;
    const join = { relationship: r, outer: alias };
    pairs.push([
      key,
      isAggregate
        ? aggregateSql(
          ctx,
          target,
          ctx.schema.getType(`${r.target}_aggregate`) as GraphQLObjectType,
          node,
          args,
          sub,
          here,
          join,
        )
        : listSql(ctx, target, targetType, node, args, sub, here, join),
    ]);
  }
  return jsonObject(ctx.b, pairs);
};

/** A root field: `T`, `T_by_pk` or `T_aggregate`. */
const rootSql = (ctx: Context, key: string, nodes: ReadonlyArray<FieldNode>): string => {
  const node = nodes[0]!;
  const name = node.name.value;
  const path = `$.selectionSet.${key}`;
  const query = ctx.schema.getQueryType()!;
  const def = fieldDef(query, name, path);
  const args = getArgumentValues(def, node, ctx.variables);
  const fields = subfields(ctx, nodes);
  const table = ctx.model.tables.get(name);
  if (table) {
    return listSql(ctx, table, ctx.schema.getType(name) as GraphQLObjectType, node, args, fields, path);
  }
  if (name.endsWith("_aggregate")) {
    const t = ctx.model.tables.get(name.slice(0, -"_aggregate".length))!;
    return aggregateSql(ctx, t, ctx.schema.getType(name) as GraphQLObjectType, node, args, fields, path);
  }
  const t = ctx.model.tables.get(name.slice(0, -"_by_pk".length))!;
  const alias = ctx.b.alias();
  const key_ = t.primaryKey.map((c) => {
    const col = t.columns.get(c)!;
    const value = args[c];
    return `${column(alias, c)} = ${byPkParameter(ctx.b, col.scalar, value)}`;
  });
  const row = rowJson(ctx, t, ctx.schema.getType(t.name) as GraphQLObjectType, alias, fields, path);
  return `(select ${row} from ${ident(t.name)} ${alias} where ${key_.join(" and ")})`;
};

const byPkParameter = (b: SqlBuilder, scalar: ScalarName, value: unknown) => {
  const placeholder = b.param(typeof value === "number" ? String(value) : value);
  return scalar === "bigint"
    ? `${placeholder}::int8`
    : scalar === "Int"
    ? `${placeholder}::int4`
    : placeholder;
};

const introspective = (name: string) => name === "__schema" || name === "__type" || name === "__typename";

export const compileQuery = (
  schema: GraphQLSchema,
  model: SchemaModel,
  operation: OperationDefinitionNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  variables: Readonly<Record<string, unknown>>,
  rawVariables: Readonly<Record<string, unknown>>,
  sources?: RowSources,
): CompiledQuery => {
  const probes: Array<PlanProbe> = [];
  const read = new Set<string>();
  const ctx: Context = {
    b: new SqlBuilder(),
    schema,
    model,
    fragments,
    variables,
    rawVariables,
    probes,
    sources,
    read,
  };
  const roots = collect(ctx, operation.selectionSet);
  const keys = [...roots.keys()];
  const introspection = keys.filter((k) => introspective(roots.get(k)![0]!.name.value));
  const pairs = keys.filter((k) => !introspection.includes(k)).map((k) =>
    [k, rootSql(ctx, k, roots.get(k)!)] as const
  );
  const sql = pairs.length === 0 ? undefined : `select ${jsonObject(ctx.b, pairs)}::text as data`;
  return { sql, params: ctx.b.params, introspection, keys, probes, read };
};
