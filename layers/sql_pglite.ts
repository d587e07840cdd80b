/**
 * A `SqlClient` over embedded PGlite (PostgreSQL in wasm, one session per database), with the value contract of
 * `sql_types.ts`, so callers cannot tell it from `sql_pg.ts`. PGlite has a single session: a semaphore serialises
 * statements, and a transaction holds it from BEGIN to COMMIT so nothing interleaves.
 */
import { PGlite } from "@electric-sql/pglite";
import * as Client from "@effect/sql/SqlClient";
import type { SqlClient } from "@effect/sql/SqlClient";
import type { Connection } from "@effect/sql/SqlConnection";
import { SqlError } from "@effect/sql/SqlError";
import { PgClient } from "@effect/sql-pg";
import type { Reactivity } from "@effect/experimental/Reactivity";
import { Effect, type Scope, Stream } from "effect";
import { textParsers } from "./sql_types.ts";

export interface PgliteClientOptions {
  /** Directory of the database files; undefined = in memory. */
  readonly dataDir?: string;
  readonly readOnly?: boolean;
}

export interface PgliteOpenOptions {
  /**
   * PostgreSQL's `shared_buffers` (e.g. "32MB"); PGlite's default is 128MB, all of it resident once opened.
   * Its files are read through the OS page cache, so a small pool costs little for our data sizes.
   */
  readonly sharedBuffers?: string;
}

/** Opens (creating on first use) a PGlite database with our parsers. */
export const openPglite = (dataDir?: string, o: PgliteOpenOptions = {}): Promise<PGlite> =>
  PGlite.create({
    dataDir,
    parsers: textParsers,
    ...(o.sharedBuffers
      ? { startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${o.sharedBuffers}`] }
      : {}),
  });

/** A SqlClient over an already open PGlite; the caller owns the PGlite's lifetime. */
export const makePgliteSqlClientFrom = (
  db: PGlite,
  o: { readonly readOnly?: boolean } = {},
): Effect.Effect<SqlClient, SqlError, Reactivity> =>
  Effect.gen(function* () {
    const lock = yield* Effect.makeSemaphore(1);
    const run = (
      sql: string,
      params: ReadonlyArray<unknown>,
      rowMode: "object" | "array",
    ): Effect.Effect<{ readonly rows: ReadonlyArray<unknown> }, SqlError> =>
      Effect.tryPromise({
        try: () =>
          params.length === 0 && rowMode === "object"
            ? db.exec(sql).then((rs) => rs[rs.length - 1] ?? { rows: [] })
            : db.query<unknown>(sql, params as unknown[], { rowMode }),
        catch: (cause) =>
          new SqlError({ cause, message: cause instanceof Error ? cause.message : String(cause) }),
      });
    const connection: Connection = {
      execute: (sql, params, transform) =>
        Effect.map(run(sql, params, "object"), (r) =>
          transform ? transform(r.rows as ReadonlyArray<object>) : r.rows),
      executeRaw: (sql, params) =>
        run(sql, params, "object"),
      executeValues: (sql, params) =>
        Effect.map(run(sql, params, "array"), (r) => r.rows as ReadonlyArray<ReadonlyArray<unknown>>),
      executeUnprepared: (sql, params, transform) => connection.execute(sql, params, transform),
      executeStream: (sql, params, transform) =>
        Stream.flatMap(Stream.fromEffect(connection.execute(sql, params, transform)), Stream.fromIterable),
    };
    const acquire = Effect.as(Effect.acquireRelease(lock.take(1), () => lock.release(1)), connection);
    if (o.readOnly) {
      yield* Effect.tryPromise({
        try: () => db.exec("set default_transaction_read_only = on"),
        catch: (cause) => new SqlError({ cause, message: "cannot make the PGlite session read-only" }),
      });
    }
    return yield* Client.make({
      acquirer: acquire,
      transactionAcquirer: acquire,
      compiler: PgClient.makeCompiler(),
      spanAttributes: [],
      beginTransaction: "BEGIN READ WRITE",
    });
  });

/** Opens a PGlite database for the scope's lifetime and returns a SqlClient over it. */
export const makePgliteSqlClient = (
  o: PgliteClientOptions,
): Effect.Effect<{ readonly sql: SqlClient; readonly db: PGlite }, SqlError, Scope.Scope | Reactivity> =>
  Effect.gen(function* () {
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => openPglite(o.dataDir),
        catch: (cause) =>
          new SqlError({
            cause,
            message: `cannot open the embedded database ${o.dataDir ?? "(memory)"}: ${String(cause)}`,
          }),
      }),
      (db) => Effect.promise(() => db.close().catch(() => {})),
    );
    const sql = yield* makePgliteSqlClientFrom(db, o);
    return { sql, db };
  });
