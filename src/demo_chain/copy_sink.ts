/**
 * Bulk loading for the demo chain: rows are encoded in PostgreSQL's COPY text format and sent in batches, through
 * `COPY ... FROM STDIN` on real PostgreSQL (pg-copy-streams) or `COPY ... FROM '/dev/blob'` on PGlite. Row by row
 * INSERTs would take hours at mainnet sizes; COPY loads hundreds of thousands of rows a second.
 */
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";

/** A value as it goes into a COPY row. `Bytea` is hex without the `\x`. */
export type CopyValue = string | number | bigint | boolean | null | undefined | Bytea | Json;

export class Bytea {
  constructor(readonly hex: string) {}
}
export class Json {
  constructor(readonly value: unknown) {}
}

const needsEscape = /[\\\t\n\r]/;
const escapeText = (s: string): string =>
  needsEscape.test(s)
    ? s.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r")
    : s;

export const encodeCopyValue = (v: CopyValue): string => {
  if (v === null || v === undefined) return "\\N";
  switch (typeof v) {
    case "string":
      return escapeText(v);
    case "number":
    case "bigint":
      return String(v);
    case "boolean":
      return v ? "t" : "f";
  }
  if (v instanceof Bytea) return "\\\\x" + v.hex;
  return escapeText(JSON.stringify(v.value));
};

/** Where batches of encoded rows go. */
export interface CopyTarget {
  copy(table: string, columns: ReadonlyArray<string>, text: string): Promise<void>;
}

export const pgliteCopyTarget = (db: PGlite): CopyTarget => ({
  copy: async (table, columns, text) => {
    await db.query(`COPY ${table} (${columns.join(", ")}) FROM '/dev/blob'`, [], {
      blob: new Blob([text]),
    });
  },
});

export const pgCopyTarget = (client: pg.Client): CopyTarget => ({
  copy: async (table, columns, text) => {
    const stream = client.query(copyFrom(`COPY ${table} (${columns.join(", ")}) FROM STDIN`));
    await pipeline(Readable.from([text]), stream);
  },
});

interface TableBuffer {
  readonly columns: ReadonlyArray<string>;
  chunks: Array<string>;
  size: number;
  rows: number;
}

/**
 * Buffers rows per table and flushes a table's batch with one COPY once it passes `batchBytes`. Counts rows so
 * the caller can report what was written.
 */
export class CopySink {
  private readonly tables = new Map<string, TableBuffer>();
  readonly counts = new Map<string, number>();
  private pendingBytes = 0;

  constructor(private readonly target: CopyTarget, private readonly batchBytes = 4 << 20) {}

  /** Declares a table's column order once; `row` values follow it. */
  define(table: string, columns: ReadonlyArray<string>): void {
    this.tables.set(table, { columns, chunks: [], size: 0, rows: 0 });
    this.counts.set(table, 0);
  }

  row(table: string, values: ReadonlyArray<CopyValue>): void {
    const t = this.tables.get(table);
    if (!t) throw new Error(`demo chain: table ${table} was not defined`);
    if (values.length !== t.columns.length) {
      throw new Error(`demo chain: ${table} row has ${values.length} values for ${t.columns.length} columns`);
    }
    const line = values.map(encodeCopyValue).join("\t") + "\n";
    t.chunks.push(line);
    t.size += line.length;
    t.rows++;
    this.pendingBytes += line.length;
    this.counts.set(table, this.counts.get(table)! + 1);
  }

  /** Flushes the tables whose buffers are full (or all, when the total buffered passes 4x the batch size). */
  async flushFull(): Promise<void> {
    const all = this.pendingBytes > this.batchBytes * 4;
    for (const [name, t] of this.tables) {
      if (t.size >= this.batchBytes || (all && t.size > 0)) await this.flushTable(name, t);
    }
  }

  async flushAll(): Promise<void> {
    for (const [name, t] of this.tables) if (t.size > 0) await this.flushTable(name, t);
  }

  private async flushTable(name: string, t: TableBuffer): Promise<void> {
    const text = t.chunks.join("");
    t.chunks = [];
    this.pendingBytes -= t.size;
    t.size = 0;
    t.rows = 0;
    await this.target.copy(name, t.columns, text);
  }
}
