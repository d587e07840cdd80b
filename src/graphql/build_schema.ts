/**
 * The GraphQL schema, generated from the schema model in Hasura's shape: per table `T` an object type `T`, root
 * fields `T` (where, order_by, limit, offset, distinct_on), `T_by_pk` and `T_aggregate`, filter types
 * `T_bool_exp` with `<scalar>_comparison_exp`, `T_order_by`, `T_select_column`, and the aggregate types. Object
 * relationships are fields of the target's type, array relationships take the list arguments and have an
 * `_aggregate` companion. No resolvers: queries are compiled to SQL (compile.ts); graphql-js only parses,
 * validates and answers introspection.
 */
import {
  GraphQLBoolean,
  GraphQLEnumType,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  GraphQLFloat,
  type GraphQLInputFieldConfig,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLSchema,
  GraphQLString,
} from "graphql";
import { isJson, isNumeric, isOrdered, makeScalars, scalarTypeName } from "./scalars.ts";
import type { ColumnModel, ScalarName, SchemaModel, TableModel } from "@src/queries/schema_model.ts";

export const orderByEnum = new GraphQLEnumType({
  name: "order_by",
  description: "Column ordering options (asc puts nulls last, desc puts nulls first, as PostgreSQL does)",
  values: {
    asc: { value: "asc nulls last", description: "in ascending order, nulls last" },
    asc_nulls_first: { value: "asc nulls first", description: "in ascending order, nulls first" },
    asc_nulls_last: { value: "asc nulls last", description: "in ascending order, nulls last" },
    desc: { value: "desc nulls first", description: "in descending order, nulls first" },
    desc_nulls_first: { value: "desc nulls first", description: "in descending order, nulls first" },
    desc_nulls_last: { value: "desc nulls last", description: "in descending order, nulls last" },
  },
});

const nonNull = <T extends GraphQLOutputType>(t: T) => new GraphQLNonNull(t);
const listOf = <T extends GraphQLObjectType>(t: T) => nonNull(new GraphQLList(nonNull(t)));

/** Sum of an integer column is a 64-bit or wider number: `bigint` for Int/smallint, `numeric` beyond. */
const sumScalar = (s: ScalarName): ScalarName =>
  s === "Int" || s === "smallint" ? "bigint" : s === "float8" ? "float8" : "numeric";

export const buildSchema = (model: SchemaModel): GraphQLSchema => {
  const scalarType = makeScalars(model.enums);
  const comparisons = new Map<string, GraphQLInputObjectType>();

  const comparisonExp = (s: ScalarName) => {
    const name = `${scalarTypeName(s)}_comparison_exp`;
    const found = comparisons.get(name);
    if (found) return found;
    const t = scalarType(s);
    const list = new GraphQLList(new GraphQLNonNull(t));
    const fields: Record<string, GraphQLInputFieldConfig> = {
      _is_null: { type: GraphQLBoolean, description: "true: the value is null; false: it is not" },
    };
    if (isJson(s)) {
      fields._eq = { type: t };
      fields._neq = { type: t };
      fields._contains = { type: t, description: "the value contains this JSON (PostgreSQL @>)" };
      fields._has_key = { type: GraphQLString, description: "the object has this top-level key" };
    } else {
      Object.assign(fields, {
        _eq: { type: t },
        _neq: { type: t },
        _in: { type: list },
        _nin: { type: list },
      });
      if (isOrdered(s)) {
        Object.assign(fields, { _gt: { type: t }, _gte: { type: t }, _lt: { type: t }, _lte: { type: t } });
      }
      if (s === "String") {
        Object.assign(fields, {
          _like: { type: GraphQLString, description: "SQL LIKE pattern (% any text, _ one character)" },
          _nlike: { type: GraphQLString, description: "NOT LIKE" },
          _ilike: { type: GraphQLString, description: "case-insensitive LIKE" },
          _nilike: { type: GraphQLString, description: "case-insensitive NOT LIKE" },
        });
      }
    }
    const made = new GraphQLInputObjectType({
      name,
      description: `Boolean expression to compare columns of type "${
        scalarTypeName(s)
      }". All fields are combined with logical 'AND'.`,
      fields,
    });
    comparisons.set(name, made);
    return made;
  };

  const tables = [...model.tables.values()];
  const objects = new Map<string, GraphQLObjectType>();
  const boolExps = new Map<string, GraphQLInputObjectType>();
  const orderBys = new Map<string, GraphQLInputObjectType>();
  const selectColumns = new Map<string, GraphQLEnumType>();
  const aggregates = new Map<string, GraphQLObjectType>();
  const aggregateOrderBys = new Map<string, GraphQLInputObjectType>();

  const columnsWhere = (t: TableModel, keep: (c: ColumnModel) => boolean) =>
    [...t.columns.values()].filter(keep);

  for (const t of tables) {
    selectColumns.set(
      t.name,
      new GraphQLEnumType({
        name: `${t.name}_select_column`,
        description: `select columns of table "${t.name}"`,
        values: Object.fromEntries(
          [...t.columns.keys()].map((c) => [c, { value: c, description: "column name" }]),
        ),
      }),
    );
    boolExps.set(
      t.name,
      new GraphQLInputObjectType({
        name: `${t.name}_bool_exp`,
        description:
          `Boolean expression to filter rows from the table "${t.name}". All fields are combined with a logical 'AND'.`,
        fields: () => {
          const self = boolExps.get(t.name)!;
          const fields: Record<string, GraphQLInputFieldConfig> = {
            _and: { type: new GraphQLList(new GraphQLNonNull(self)) },
            _or: { type: new GraphQLList(new GraphQLNonNull(self)) },
            _not: { type: self },
          };
          for (const c of t.columns.values()) fields[c.name] = { type: comparisonExp(c.scalar) };
          for (const r of t.relationships.values()) fields[r.name] = { type: boolExps.get(r.target)! };
          return fields;
        },
      }),
    );
    orderBys.set(
      t.name,
      new GraphQLInputObjectType({
        name: `${t.name}_order_by`,
        description: `Ordering options when selecting data from "${t.name}".`,
        fields: () => {
          const fields: Record<string, GraphQLInputFieldConfig> = {};
          for (const c of t.columns.values()) if (!isJson(c.scalar)) fields[c.name] = { type: orderByEnum };
          for (const r of t.relationships.values()) {
            if (r.kind === "object") fields[r.name] = { type: orderBys.get(r.target)! };
            else fields[`${r.name}_aggregate`] = { type: aggregateOrderBys.get(r.target)! };
          }
          return fields;
        },
      }),
    );
    // per-function column lists of the aggregate types; a function with no column gets no field
    const numeric = columnsWhere(t, (c) => isNumeric(c.scalar));
    const ordered = columnsWhere(t, (c) => isOrdered(c.scalar) && c.scalar !== "Boolean");
    const fieldsOf = (cols: ReadonlyArray<ColumnModel>, type: (c: ColumnModel) => GraphQLOutputType) =>
      Object.fromEntries(cols.map((c) => [c.name, { type: type(c) }]));
    const functionTypes: Record<string, GraphQLObjectType> = {};
    const functionOrderBys: Record<string, GraphQLInputFieldConfig> = { count: { type: orderByEnum } };
    const functions: Array<[string, ReadonlyArray<ColumnModel>, (c: ColumnModel) => GraphQLOutputType]> = [
      ["sum", numeric, (c) => scalarType(sumScalar(c.scalar))],
      ["avg", numeric, () => GraphQLFloat],
      ["max", ordered, (c) => scalarType(c.scalar)],
      ["min", ordered, (c) => scalarType(c.scalar)],
    ];
    for (const [fn, cols, type] of functions) {
      if (cols.length === 0) continue;
      functionTypes[fn] = new GraphQLObjectType({
        name: `${t.name}_${fn}_fields`,
        description: `aggregate ${fn} on columns`,
        fields: fieldsOf(cols, type),
      });
      functionOrderBys[fn] = {
        type: new GraphQLInputObjectType({
          name: `${t.name}_${fn}_order_by`,
          description: `order by ${fn}() on columns of table "${t.name}"`,
          fields: Object.fromEntries(cols.map((c) => [c.name, { type: orderByEnum }])),
        }),
      };
    }
    aggregateOrderBys.set(
      t.name,
      new GraphQLInputObjectType({
        name: `${t.name}_aggregate_order_by`,
        description: `order by aggregate values of table "${t.name}"`,
        fields: functionOrderBys,
      }),
    );
    const aggregateFields = new GraphQLObjectType({
      name: `${t.name}_aggregate_fields`,
      description: `aggregate fields of "${t.name}"`,
      fields: {
        count: {
          type: new GraphQLNonNull(GraphQLInt),
          args: {
            columns: { type: new GraphQLList(new GraphQLNonNull(selectColumns.get(t.name)!)) },
            distinct: { type: GraphQLBoolean },
          },
        },
        ...Object.fromEntries(Object.entries(functionTypes).map(([fn, type]) => [fn, { type }])),
      },
    });
    aggregates.set(
      t.name,
      new GraphQLObjectType({
        name: `${t.name}_aggregate`,
        description: `aggregated selection of "${t.name}"`,
        fields: () => ({
          aggregate: { type: aggregateFields },
          nodes: { type: listOf(objects.get(t.name)!) },
        }),
      }),
    );
  }

  const listArgs = (table: string): GraphQLFieldConfigArgumentMap => ({
    distinct_on: {
      type: new GraphQLList(new GraphQLNonNull(selectColumns.get(table)!)),
      description: "distinct select on columns",
    },
    limit: { type: GraphQLInt, description: "limit the number of rows returned" },
    offset: { type: GraphQLInt, description: "skip the first n rows. Use only with order_by" },
    order_by: {
      type: new GraphQLList(new GraphQLNonNull(orderBys.get(table)!)),
      description: "sort the rows by one or more columns",
    },
    where: { type: boolExps.get(table)!, description: "filter the rows returned" },
  });

  for (const t of tables) {
    objects.set(
      t.name,
      new GraphQLObjectType({
        name: t.name,
        description: `columns and relationships of "${t.name}"`,
        fields: () => {
          const fields: Record<string, GraphQLFieldConfig<unknown, unknown>> = {};
          for (const c of t.columns.values()) {
            const type = scalarType(c.scalar);
            fields[c.name] = { type: c.nullable ? type : new GraphQLNonNull(type) };
          }
          for (const r of t.relationships.values()) {
            if (r.kind === "object") {
              fields[r.name] = {
                type: objects.get(r.target)!,
                description: `the ${r.target} row this one refers to (${
                  r.on.map(([a, b]) => `${a} = ${r.target}.${b}`).join(", ")
                })`,
              };
            } else {
              const description = `the ${r.target} rows referring to this one (${
                r.on.map(([a, b]) => `${r.target}.${b} = ${a}`).join(", ")
              })`;
              fields[r.name] = {
                type: listOf(objects.get(r.target)!),
                args: listArgs(r.target),
                description,
              };
              fields[`${r.name}_aggregate`] = {
                type: new GraphQLNonNull(aggregates.get(r.target)!),
                args: listArgs(r.target),
                description: `aggregated ${description}`,
              };
            }
          }
          return fields;
        },
      }),
    );
  }

  const query = new GraphQLObjectType({
    name: "query_root",
    fields: () => {
      const fields: Record<string, GraphQLFieldConfig<unknown, unknown>> = {};
      for (const t of tables) {
        fields[t.name] = {
          type: listOf(objects.get(t.name)!),
          args: listArgs(t.name),
          description: `fetch data from the table: "${t.name}"`,
        };
        fields[`${t.name}_aggregate`] = {
          type: new GraphQLNonNull(aggregates.get(t.name)!),
          args: listArgs(t.name),
          description: `fetch aggregated fields from the table: "${t.name}"`,
        };
        const key = t.primaryKey.map((k) => t.columns.get(k));
        if (key.length > 0 && key.every((c) => c !== undefined)) {
          fields[`${t.name}_by_pk`] = {
            type: objects.get(t.name)!,
            args: Object.fromEntries(
              key.map((c) => [c!.name, { type: new GraphQLNonNull(scalarType(c!.scalar)) }]),
            ),
            description: `fetch data from the table: "${t.name}" using primary key columns`,
          };
        }
      }
      return fields;
    },
  });
  return new GraphQLSchema({ query, types: [GraphQLString, GraphQLBoolean] });
};
