/**
 * How busy a database client's connections are, for the metrics: read when scraped from the client itself
 * (`sql_pg.ts`: node-postgres' pool; `sql_pglite.ts`: the single embedded session and its queue). A client is
 * looked up by its `SqlClient`, so opening one needs no extra parameter and callers stay as they are.
 */
import type { SqlClient } from "@effect/sql/SqlClient";

export interface PoolUse {
  /** Connections open (an embedded database has one session). */
  readonly open: number;
  /** Of those, in use now. */
  readonly busy: number;
  /** Callers waiting for a connection now (the embedded session's queue). */
  readonly waiting: number;
  /** Connections handed out since the start, and the seconds their callers waited for them in all. */
  readonly acquisitions: number;
  readonly waitSeconds: number;
  /** An embedded database's worker restarts (a statement over its time, a failed worker). */
  readonly restarts?: number;
}

/** Counts acquisitions and their waits; `started` before asking, `acquired` once served (or given up). */
export class AcquireTimer {
  acquisitions = 0;
  waitSeconds = 0;
  waiting = 0;
  started(): number {
    this.waiting++;
    return performance.now();
  }
  acquired(startedAt: number): void {
    this.waiting--;
    this.acquisitions++;
    this.waitSeconds += (performance.now() - startedAt) / 1000;
  }
  gaveUp(): void {
    this.waiting--;
  }
}

const readers = new WeakMap<SqlClient, () => PoolUse>();

export const registerPoolUse = (sql: SqlClient, read: () => PoolUse): void => {
  readers.set(sql, read);
};

/** The client's figures now, or undefined for a client that keeps none. */
export const poolUseOf = (sql: SqlClient): PoolUse | undefined => readers.get(sql)?.();
