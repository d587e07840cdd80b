/**
 * `order_by` as SQL sort terms, in the order the query wrote its keys: columns, columns of object relationships
 * (correlated subqueries on the referenced key) and aggregates of array relationships (`txes_aggregate: {count:
 * desc}`). Directions are the order_by enum's values (`asc nulls last`, ...), never text from the query.
 */
import { joinSql } from "./filters.ts";
import type { Relationship, TableModel } from "@src/queries/schema_model.ts";
import type { Context } from "./selection.ts";
import { column, ident } from "./sql_text.ts";

export interface OrderTerm {
  readonly expr: string;
  readonly direction: string;
  /** The column when the term orders by a column of the table itself (for distinct_on and the index check). */
  readonly column?: string;
}

/** order_by terms in the order written: the key order of the query text or of the variables as sent. */
export const orderTerms = (
  ctx: Context,
  table: TableModel,
  alias: string,
  coerced: Readonly<Record<string, unknown>>,
  raw: unknown,
): Array<OrderTerm> => {
  const rawKeys = raw !== null && typeof raw === "object" ? Object.keys(raw) : [];
  const keys = [
    ...rawKeys.filter((k) => k in coerced),
    ...Object.keys(coerced).filter((k) => !rawKeys.includes(k)),
  ];
  return keys.flatMap((key): Array<OrderTerm> => {
    const value = coerced[key];
    if (value === undefined || value === null) return [];
    const rawValue = (raw as Record<string, unknown> | null)?.[key];
    if (table.columns.has(key)) {
      return [{ expr: column(alias, key), direction: value as string, column: key }];
    }
    const aggregate = key.endsWith("_aggregate")
      ? table.relationships.get(key.slice(0, -"_aggregate".length))
      : undefined;
    if (aggregate) {
      return aggregateOrderTerms(ctx, aggregate, alias, value as Record<string, unknown>, rawValue);
    }
    const r = table.relationships.get(key)!;
    const target = ctx.model.tables.get(r.target)!;
    const inner = ctx.b.alias();
    return orderTerms(ctx, target, inner, value as Record<string, unknown>, rawValue).map((t) => ({
      expr: `(select ${t.expr} from ${ident(target.name)} ${inner} where ${joinSql(r, alias, inner)})`,
      direction: t.direction,
    }));
  });
};

export const aggregateOrderTerms = (
  ctx: Context,
  r: Relationship,
  alias: string,
  value: Readonly<Record<string, unknown>>,
  raw: unknown,
): Array<OrderTerm> => {
  const target = ctx.model.tables.get(r.target)!;
  const sub = (fn: string) => {
    const inner = ctx.b.alias();
    return `(select ${fn.replaceAll("$t", inner)} from ${ident(target.name)} ${inner} where ${
      joinSql(r, alias, inner)
    })`;
  };
  const rawObject = (raw ?? {}) as Record<string, unknown>;
  const keys = [
    ...Object.keys(rawObject).filter((k) => k in value),
    ...Object.keys(value).filter((k) => !(k in rawObject)),
  ];
  return keys.flatMap((fn): Array<OrderTerm> => {
    const v = value[fn];
    if (v === undefined || v === null) return [];
    if (fn === "count") return [{ expr: sub("count(*)"), direction: v as string }];
    const cols = v as Record<string, string>;
    const rawCols = (rawObject[fn] ?? {}) as Record<string, unknown>;
    const order = [
      ...Object.keys(rawCols).filter((k) => k in cols),
      ...Object.keys(cols).filter((k) => !(k in rawCols)),
    ];
    return order.flatMap((c) =>
      cols[c] ? [{ expr: sub(`${fn}(${column("$t", c)})`), direction: cols[c]! }] : []
    );
  });
};
