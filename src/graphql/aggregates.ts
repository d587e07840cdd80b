/**
 * The `aggregate` object of `T_aggregate`: count (of rows, of a column's values, distinct), sum as an exact
 * string, avg as a float, min/max in the column's own output form, over the row source's columns `r.c0, r.c1..`.
 */
import { getArgumentValues, type GraphQLObjectType } from "graphql";
import { outputSql } from "./scalars.ts";
import type { ScalarName, TableModel } from "@src/queries/schema_model.ts";
import { asList, type Context, fieldDef, type Fields, subfields } from "./selection.ts";
import { QueryRejected } from "./failures.ts";
import { jsonObject } from "./sql_text.ts";

export const aggregateFields = (
  ctx: Context,
  table: TableModel,
  type: GraphQLObjectType,
  fields: Fields,
  path: string,
  input: (column: string) => string,
): string => {
  const pairs: Array<readonly [string, string]> = [];
  for (const [key, nodes] of fields) {
    const node = nodes[0]!;
    const name = node.name.value;
    const here = `${path}.selectionSet.${key}`;
    if (name === "__typename") {
      pairs.push([key, `${ctx.b.param(type.name)}::text`]);
    } else if (name === "count") {
      const args = getArgumentValues(fieldDef(type, "count", here), node, ctx.variables) as {
        columns?: ReadonlyArray<string>;
        distinct?: boolean | null;
      };
      const cols = asList(args.columns).map(input);
      const distinct = args.distinct ? "distinct " : "";
      pairs.push([
        key,
        cols.length === 0
          ? "count(*)"
          : cols.length === 1
          ? `count(${distinct}${cols[0]})`
          : `count(${distinct}(${cols.join(", ")}))`,
      ]);
    } else if (["sum", "avg", "min", "max"].includes(name)) {
      const fnType = fieldDef(type, name, here).type as GraphQLObjectType;
      const inner: Array<readonly [string, string]> = [];
      for (const [k, ns] of subfields(ctx, nodes)) {
        const c = ns[0]!.name.value;
        if (c === "__typename") {
          inner.push([k, `${ctx.b.param(fnType.name)}::text`]);
          continue;
        }
        const col = table.columns.get(c);
        if (!col) throw new QueryRejected(`field ${c} not found in type: ${fnType.name}`, `${here}.${k}`);
        inner.push([k, aggregateValue(name, col.scalar, input(c))]);
      }
      pairs.push([key, jsonObject(ctx.b, inner)]);
    } else {
      throw new QueryRejected(`field ${name} not found in type: ${type.name}`, here);
    }
  }
  return jsonObject(ctx.b, pairs);
};

/** sum as an exact string, avg as a float, min/max in the column's own output form. */
export const aggregateValue = (fn: string, scalar: ScalarName, value: string): string => {
  if (fn === "avg") return `avg(${value})::float8`;
  if (fn === "sum") return scalar === "float8" ? `sum(${value})` : `sum(${value})::text`;
  return outputSql(scalar, `${fn}(${value})`);
};
