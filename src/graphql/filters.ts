/**
 * `where` (a `T_bool_exp`, already coerced by graphql-js against the schema) as a SQL condition: `_and`, `_or`,
 * `_not`, column comparisons, and conditions through relationships as EXISTS subqueries. Also whether a filter
 * starts from an index, which decides if a chain-sized table may be queried with it.
 */
import { comparedSql, parameterSql, parameterValue } from "./scalars.ts";
import type { Relationship, ScalarName, SchemaModel, TableModel } from "@src/queries/schema_model.ts";
import { QueryRejected } from "./failures.ts";
import { column, ident, type SqlBuilder } from "./sql_text.ts";
import { indexedForEquality, indexedForRange, isLarge, maxListValues } from "./limits.ts";

export type BoolExp = Readonly<Record<string, unknown>>;

const comparisonOps: Readonly<Record<string, string>> = {
  _eq: "=",
  _neq: "<>",
  _gt: ">",
  _gte: ">=",
  _lt: "<",
  _lte: "<=",
  _like: "like",
  _nlike: "not like",
  _ilike: "ilike",
  _nilike: "not ilike",
};

/** The join of a relationship from `outer` to the target alias `inner`. */
export const joinSql = (r: Relationship, outer: string, inner: string): string =>
  r.on.map(([local, remote]) => `${column(inner, remote)} = ${column(outer, local)}`).join(" and ");

const comparison = (
  b: SqlBuilder,
  scalar: ScalarName,
  target: string,
  ops: BoolExp,
  path: string,
): Array<string> => {
  const left = comparedSql(scalar, target);
  const value = (v: unknown) => parameterSql(scalar, b.param(parameterValue(scalar, v)));
  return Object.entries(ops).flatMap(([op, v]): Array<string> => {
    if (v === undefined) return [];
    if (v === null) {
      throw new QueryRejected(`${op}: null is not a value to compare with; use _is_null`, `${path}.${op}`);
    }
    if (op === "_is_null") return [`${target} is ${v ? "" : "not "}null`];
    if (op === "_in" || op === "_nin") {
      const list = v as ReadonlyArray<unknown>;
      if (list.length > maxListValues) {
        throw new QueryRejected(
          `${op} takes at most ${maxListValues} values, got ${list.length}`,
          `${path}.${op}`,
        );
      }
      if (list.length === 0) return [op === "_in" ? "false" : "true"];
      return [`${left} ${op === "_in" ? "in" : "not in"} (${list.map(value).join(", ")})`];
    }
    if (op === "_contains") return [`${left} @> ${value(v)}`];
    if (op === "_has_key") return [`jsonb_exists(${left}, ${b.param(v)}::text)`];
    const sqlOp = comparisonOps[op];
    if (!sqlOp) throw new QueryRejected(`unknown operator ${op}`, `${path}.${op}`); // the schema admits none
    const right = op.endsWith("like") ? `${b.param(v)}::text` : value(v);
    return [`${left} ${sqlOp} ${right}`];
  });
};

const all = (conds: ReadonlyArray<string>) =>
  conds.length === 0 ? "true" : conds.map((c) => `(${c})`).join(" and ");

/** The condition `exp` puts on rows of `table` under `alias`. */
export const whereSql = (
  b: SqlBuilder,
  model: SchemaModel,
  table: TableModel,
  alias: string,
  exp: BoolExp,
  path: string,
): string => {
  const conds = Object.entries(exp).flatMap(([key, v]): Array<string> => {
    if (v === undefined) return [];
    const here = `${path}.${key}`;
    if (v === null) {
      throw new QueryRejected(`${key}: null is not a filter; leave it out or use _is_null`, here);
    }
    if (key === "_and" || key === "_or") {
      const parts = (v as ReadonlyArray<BoolExp>).map((e, i) =>
        whereSql(b, model, table, alias, e, `${here}[${i}]`)
      );
      if (parts.length === 0) return [key === "_and" ? "true" : "false"];
      return [parts.map((p) => `(${p})`).join(key === "_and" ? " and " : " or ")];
    }
    if (key === "_not") return [`not (${whereSql(b, model, table, alias, v as BoolExp, here)})`];
    const col = table.columns.get(key);
    if (col) return comparison(b, col.scalar, column(alias, key), v as BoolExp, here);
    const r = table.relationships.get(key);
    if (!r) throw new QueryRejected(`field ${key} not found in type: ${table.name}_bool_exp`, here);
    const target = model.tables.get(r.target)!;
    const inner = b.alias();
    const sub = whereSql(b, model, target, inner, v as BoolExp, here);
    return [
      `exists (select 1 from ${ident(target.name)} ${inner} where ${joinSql(r, alias, inner)} and ${sub})`,
    ];
  });
  return all(conds);
};

/**
 * True when the filter matches at most one row whatever else it says: an AND-ed `_eq` (not null) on a column with
 * a unique index of its own (a block or transaction by hash). Such an access needs no planner's estimate.
 */
export const matchesAtMostOneRow = (table: TableModel, exp: BoolExp | undefined): boolean => {
  if (!exp) return false;
  return Object.entries(exp).some(([key, v]) => {
    if (v === undefined || v === null) return false;
    if (key === "_and") return (v as ReadonlyArray<BoolExp>).some((e) => matchesAtMostOneRow(table, e));
    if (!table.unique.has(key) || typeof v !== "object") return false;
    const eq = (v as BoolExp)["_eq"];
    return eq !== undefined && eq !== null;
  });
};

/**
 * True when the filter lets PostgreSQL start from an index of `table`: one AND-ed condition that is an equality
 * or `_in` on an indexed column, a range on a btree column, an `_or` of such conditions, or a condition through
 * a relationship whose join column is indexed here and whose target is small or itself filtered by an index.
 */
export const hasIndexedFilter = (
  model: SchemaModel,
  table: TableModel,
  exp: BoolExp | undefined,
): boolean => {
  if (!exp) return false;
  return Object.entries(exp).some(([key, v]) => {
    if (v === undefined || v === null) return false;
    if (key === "_and") return (v as ReadonlyArray<BoolExp>).some((e) => hasIndexedFilter(model, table, e));
    if (key === "_or") {
      const parts = v as ReadonlyArray<BoolExp>;
      return parts.length > 0 && parts.every((e) => hasIndexedFilter(model, table, e));
    }
    if (key === "_not") return false;
    if (table.columns.has(key)) {
      return Object.entries(v as BoolExp).some(([op, value]) =>
        value !== undefined && value !== null && (
          ((op === "_eq" || op === "_in") && indexedForEquality(table, key)) ||
          (["_gt", "_gte", "_lt", "_lte"].includes(op) && indexedForRange(table, key))
        )
      );
    }
    const r = table.relationships.get(key);
    if (!r) return false;
    const target = model.tables.get(r.target)!;
    const local = r.on[0]![0];
    return indexedForEquality(table, local) &&
      (!isLarge(target) || hasIndexedFilter(model, target, v as BoolExp));
  });
};
