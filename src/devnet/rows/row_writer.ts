/**
 * Row inserts for the block writer: explicit ids per table (the demo chain is loaded with COPY, which leaves
 * the id sequences behind, so ids continue from `max(id)`), bytea decoded from hex and lovelace as decimal text so
 * both database drivers store them alike. One instance per block, inside the block's database transaction.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { hex } from "@scure/base";
import type { Fragment } from "@effect/sql/Statement";
import { Effect } from "effect";

export type RowValue = string | number | boolean | null | Fragment;

export const text = (n: bigint | number): string => String(n);

export class RowWriter {
  private readonly next = new Map<string, number>();
  /** Rows written per table, for reports and tests. */
  readonly counts = new Map<string, number>();

  constructor(readonly sql: SqlClient) {}

  /**
   * A bytea value, decoded from hex by the server: db-sync's hash columns are domains over bytea, which PGlite's
   * parameter serialiser does not recognise, so bytes travel as text on both backends.
   */
  bytea(value: Uint8Array | string): Fragment {
    return this.sql`decode(${typeof value === "string" ? value : hex.encode(value)}, 'hex')`;
  }

  /** The next id of a table (db-sync ids start at 1). */
  id(table: string): Effect.Effect<number, SqlError> {
    const known = this.next.get(table);
    if (known !== undefined) {
      this.next.set(table, known + 1);
      return Effect.succeed(known);
    }
    return Effect.map(
      this.sql<{ id: string }>`select (coalesce(max(id), 0) + 1)::text as id from ${this.sql(table)}`,
      (rows) => {
        const id = Number(rows[0]!.id);
        this.next.set(table, id + 1);
        return id;
      },
    );
  }

  insert(table: string, row: Record<string, RowValue>): Effect.Effect<void, SqlError> {
    this.counts.set(table, (this.counts.get(table) ?? 0) + 1);
    const { sql } = this;
    const keys = Object.keys(row);
    const columns = sql.csv(keys.map((k) => sql`${sql(k)}`));
    const values = sql.csv(keys.map((k) => {
      const v = row[k];
      return typeof v === "object" && v !== null ? v : sql`${v}`;
    }));
    return Effect.asVoid(sql`insert into ${sql(table)} (${columns}) values (${values})`);
  }

  /** Inserts a row with the table's next id; returns the id. */
  add(table: string, row: Record<string, RowValue>): Effect.Effect<number, SqlError> {
    return Effect.flatMap(this.id(table), (id) => Effect.as(this.insert(table, { id, ...row }), id));
  }
}
