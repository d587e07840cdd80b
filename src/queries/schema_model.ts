/**
 * What the GraphQL schema is generated from: the db-sync tables and views present in the live database (columns
 * and types from information_schema, primary keys, which columns lead an index, row estimates), with the
 * relationships db-sync implies but does not declare (schemas/graphql/dbsync_references.ts). Nothing here is
 * written per table by hand; only the relationship naming rule and three input-table names are ours. Read at
 * start by layers/graphql_schemas.ts; src/graphql builds the schema and compiles queries from it.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import { dbSyncRelations, impliedReferences } from "@schemas/graphql/dbsync_references.ts";

/** Column types as GraphQL scalars, named as Hasura names them (src/graphql/scalars.ts serves them). */
export type ScalarName =
  | "Int"
  | "smallint"
  | "bigint"
  | "numeric"
  | "float8"
  | "Boolean"
  | "String"
  | "bytea"
  | "timestamp"
  | "timestamptz"
  | "date"
  | "jsonb"
  | "json"
  | `enum:${string}`;

/** The scalar of an information_schema column, or undefined for types the schema leaves out. */
export const scalarOfColumn = (dataType: string, udtName: string): ScalarName | undefined => {
  switch (dataType) {
    case "integer":
      return "Int";
    case "smallint":
      return "smallint";
    case "bigint":
      return "bigint";
    case "numeric":
      return "numeric";
    case "double precision":
    case "real":
      return "float8";
    case "boolean":
      return "Boolean";
    case "text":
    case "character varying":
    case "character":
      return "String";
    case "bytea":
      return "bytea";
    case "timestamp without time zone":
      return "timestamp";
    case "timestamp with time zone":
      return "timestamptz";
    case "date":
      return "date";
    case "jsonb":
      return "jsonb";
    case "json":
      return "json";
    case "USER-DEFINED":
      return /^[a-z_][a-z0-9_]*$/.test(udtName) ? `enum:${udtName}` : undefined;
    default:
      return undefined;
  }
};

export interface ColumnModel {
  readonly name: string;
  readonly scalar: ScalarName;
  readonly nullable: boolean;
}

export interface Relationship {
  readonly name: string;
  /** object: at most one target row (a reference); array: the rows referring to this one. */
  readonly kind: "object" | "array";
  readonly target: string;
  /** [column of this table, column of the target] pairs joined with AND. */
  readonly on: ReadonlyArray<readonly [string, string]>;
}

export interface TableModel {
  readonly name: string;
  readonly columns: ReadonlyMap<string, ColumnModel>;
  readonly primaryKey: ReadonlyArray<string>;
  /** Columns that lead a valid, non-partial btree index: usable for equality, ranges and ordering. */
  readonly btree: ReadonlySet<string>;
  /** Column pairs `${first}\u0000${second}` that lead a valid, non-partial btree index: an equality on the first
   * gives the rows in the second's order. */
  readonly btreePairs: ReadonlySet<string>;
  /** Columns that lead a hash index: usable for equality only. */
  readonly hashed: ReadonlySet<string>;
  /** Columns with a single-column unique index (or primary key): an equality finds at most one row. */
  readonly unique: ReadonlySet<string>;
  readonly estimatedRows: number;
  readonly relationships: ReadonlyMap<string, Relationship>;
}

export interface SchemaModel {
  readonly tables: ReadonlyMap<string, TableModel>;
  /** Labels of the enum types columns use, for input validation. */
  readonly enums: ReadonlyMap<string, ReadonlyArray<string>>;
}

const identifier = /^[a-z_][a-z0-9_]*$/;

/** English plural of a table name, as Hasura suggests relationship names (`tx` -> `txes`). */
export const plural = (name: string): string =>
  /(x|ss|sh|ch)$/.test(name)
    ? `${name}es`
    : /s$/.test(name)
    ? name
    : /[^aeiou]y$/.test(name)
    ? `${name.slice(0, -1)}ies`
    : `${name}s`;

/**
 * Input tables (tx_in, collateral_tx_in, reference_tx_in) name two transactions: `tx_in_id` is the transaction
 * the input belongs to, `tx_out_id` (+ `tx_out_index`) the output it spends. Generic names would call a
 * transaction `tx_out`, so these read as the rest of the schema does: `tx`, `out_tx`, and `tx_out`.
 */
const inputTableNames: Readonly<Record<string, string>> = { tx_in_id: "tx", tx_out_id: "out_tx" };

interface CatalogColumn {
  readonly table: string;
  readonly column: string;
  readonly dataType: string;
  readonly udtName: string;
  readonly nullable: boolean;
}

const readCatalog = (sql: SqlClient) =>
  Effect.all({
    columns: sql<CatalogColumn>`
      select c.table_name as "table", c.column_name as "column", c.data_type as "dataType",
             c.udt_name as "udtName", c.is_nullable = 'YES' as "nullable"
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = current_schema() and t.table_type in ('BASE TABLE', 'VIEW')
      order by c.table_name, c.ordinal_position`,
    primaryKeys: sql<{ table: string; column: string }>`
      select tc.table_name as "table", k.column_name as "column"
      from information_schema.table_constraints tc
      join information_schema.key_column_usage k
        on k.constraint_name = tc.constraint_name and k.table_schema = tc.table_schema
       and k.table_name = tc.table_name
      where tc.constraint_type = 'PRIMARY KEY' and tc.table_schema = current_schema()
      order by tc.table_name, k.ordinal_position`,
    indexes: sql<{ table: string; column: string; second: string | null; method: string; unique: boolean }>`
      select c.relname as "table", a.attname as "column", am.amname as "method",
             i.indisunique and i.indnkeyatts = 1 as "unique",
             (select a2.attname from pg_attribute a2
               where i.indnkeyatts >= 2 and a2.attrelid = c.oid and a2.attnum = i.indkey[1]) as "second"
      from pg_index i
      join pg_class c on c.oid = i.indrelid
      join pg_namespace n on n.oid = c.relnamespace
      join pg_class ic on ic.oid = i.indexrelid
      join pg_am am on am.oid = ic.relam
      join pg_attribute a on a.attrelid = c.oid and a.attnum = i.indkey[0]
      where n.nspname = current_schema() and i.indpred is null and i.indisvalid`,
    sizes: sql<{ table: string; rows: number }>`
      select c.relname as "table", greatest(c.reltuples, 0)::float8 as "rows"
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind = 'r'`,
    enums: sql<{ name: string; label: string }>`
      select t.typname as "name", e.enumlabel as "label"
      from pg_enum e join pg_type t on t.oid = e.enumtypid
      order by t.typname, e.enumsortorder`,
  });

/** Relationship names for one table's references: see README (GraphQL) for the rule. */
const forwardName = (
  table: string,
  columns: ReadonlyArray<string>,
  target: string,
  targetCount: number,
  hasPair: boolean,
): string => {
  if (columns.length > 1) return target;
  const column = columns[0]!;
  if (hasPair && inputTableNames[column]) return inputTableNames[column]!;
  if (targetCount === 1 && target !== table) return target;
  return column.endsWith("_id") ? column.slice(0, -3) : `${target}_by_${column}`;
};

export const readSchemaModel = (sql: SqlClient): Effect.Effect<SchemaModel, SqlError> =>
  Effect.map(readCatalog(sql), (catalog) => {
    const exposed = new Set(dbSyncRelations);
    const columns = new Map<string, Map<string, ColumnModel>>();
    for (const c of catalog.columns) {
      if (!exposed.has(c.table) || !identifier.test(c.column)) continue;
      const scalar = scalarOfColumn(c.dataType, c.udtName);
      if (scalar === undefined) continue; // arrays and other types db-sync does not use in its tables
      const table = columns.get(c.table) ?? new Map<string, ColumnModel>();
      table.set(c.column, { name: c.column, scalar, nullable: c.nullable });
      columns.set(c.table, table);
    }
    const pick = <A>(rows: ReadonlyArray<{ table: string } & A>, table: string) =>
      rows.filter((r) => r.table === table);

    const relationships = new Map<string, Map<string, Relationship>>();
    for (const table of columns.keys()) relationships.set(table, new Map());
    const taken = (table: string, name: string) =>
      columns.get(table)!.has(name) || relationships.get(table)!.has(name);

    const usable = impliedReferences.filter((r) =>
      columns.has(r.table) && columns.has(r.target) &&
      r.columns.every((c) => columns.get(r.table)!.has(c)) &&
      r.targetColumns.every((c) => columns.get(r.target)!.has(c))
    );
    for (const r of usable) {
      const single = usable.filter((o) => o.table === r.table && o.columns.length === 1);
      const targetCount = single.filter((o) => o.target === r.target).length;
      const hasPair = usable.some((o) => o.table === r.table && o.columns.length > 1);
      let name = forwardName(r.table, r.columns, r.target, targetCount, hasPair);
      if (taken(r.table, name)) name = `${r.target}_by_${r.columns.join("_")}`;
      if (taken(r.table, name)) continue;
      const on = r.columns.map((c, i) => [c, r.targetColumns[i]!] as const);
      relationships.get(r.table)!.set(name, { name, kind: "object", target: r.target, on });
      // the reverse: rows of r.table that refer to a target row
      let reverse = name === r.target ? plural(r.table) : `${plural(r.table)}_by_${r.columns.join("_")}`;
      if (taken(r.target, reverse) || taken(r.target, `${reverse}_aggregate`)) {
        reverse = `${plural(r.table)}_by_${r.columns.join("_")}`;
      }
      if (taken(r.target, reverse) || taken(r.target, `${reverse}_aggregate`)) continue;
      relationships.get(r.target)!.set(reverse, {
        name: reverse,
        kind: "array",
        target: r.table,
        on: on.map(([local, remote]) => [remote, local] as const),
      });
    }

    const tables = new Map<string, TableModel>();
    for (const [name, cols] of columns) {
      const indexes = pick(catalog.indexes, name);
      tables.set(name, {
        name,
        columns: cols,
        primaryKey: pick(catalog.primaryKeys, name).map((k) => k.column),
        btree: new Set(indexes.filter((i) => i.method === "btree").map((i) => i.column)),
        btreePairs: new Set(
          indexes.filter((i) => i.method === "btree" && typeof i.second === "string").map((i) =>
            `${i.column}\u0000${i.second}`
          ),
        ),
        hashed: new Set(indexes.filter((i) => i.method === "hash").map((i) => i.column)),
        unique: new Set(indexes.filter((i) => i.unique).map((i) => i.column)),
        estimatedRows: pick(catalog.sizes, name)[0]?.rows ?? 0,
        relationships: relationships.get(name)!,
      });
    }
    const enums = new Map<string, Array<string>>();
    for (const e of catalog.enums) enums.set(e.name, [...(enums.get(e.name) ?? []), e.label]);
    return { tables, enums };
  });
