/**
 * A `SqlClient` over embedded PGlite (PostgreSQL in wasm, one session per database), with the value contract of
 * `sql_types.ts`, so callers cannot tell it from `sql_pg.ts`. PGlite has a single session: a lock serialises
 * statements, and a transaction holds it from BEGIN to COMMIT so nothing interleaves. Statements marked as
 * background work (`statement_priority.ts`) wait behind the others, within a bound (`priority_lock.ts`).
 *
 * The service runs each database in a worker of its own (`makePgliteWorkerSqlClient`, see `pglite_session.ts`):
 * the thread serving HTTP never runs a statement, and one over its `statement_timeout` is cancelled. Tools and
 * tests may use a PGlite in their own thread (`makePgliteSqlClientFrom`), which has no working time limit.
 */
import { PGlite } from "@electric-sql/pglite";
import * as Client from "@effect/sql/SqlClient";
import type { SqlClient } from "@effect/sql/SqlClient";
import type { Connection } from "@effect/sql/SqlConnection";
import { SqlError } from "@effect/sql/SqlError";
import { PgClient } from "@effect/sql-pg";
import type { Reactivity } from "@effect/experimental/Reactivity";
import { Effect, FiberRef, type Scope, Stream } from "effect";
import { openPglite } from "./pglite_open.ts";
import { PgliteSession, type PgliteSessionOptions } from "./pglite_session.ts";
import { AcquireTimer, registerPoolUse } from "./pool_use.ts";
import { PriorityLock } from "./priority_lock.ts";
import { backgroundStatements, registerContention } from "./statement_priority.ts";

// tools and tests open their PGlite here too
export { openPglite, type PgliteOpenOptions } from "./pglite_open.ts";

export interface PgliteClientOptions {
  /** Directory of the database files; undefined = in memory. */
  readonly dataDir?: string;
  readonly readOnly?: boolean;
}

/** Where the client's statements run: the session is one PostgreSQL session at a time. */
interface Statements {
  readonly run: (
    sql: string,
    params: ReadonlyArray<unknown>,
    rowMode: "object" | "array",
  ) => Promise<ReadonlyArray<unknown>>;
  /** Changes when the session is replaced: a transaction begun in the old one is gone. */
  readonly generation: () => number;
  /** Worker restarts so far (for the metrics); none for a database in this thread. */
  readonly restarts?: () => number;
}

const isRollback = /^\s*rollback\b/i;

/** Urgent statements served while a background one waits, before it goes: a background batch still advances. */
const urgentInARow = 4;

const toSqlError = (cause: unknown) =>
  new SqlError({ cause, message: cause instanceof Error ? cause.message : String(cause) });

const makeClient = (statements: Statements): Effect.Effect<SqlClient, SqlError, Reactivity> =>
  Effect.gen(function* () {
    const lock = new PriorityLock(urgentInARow);
    // the session's queue, for the metrics (pool_use.ts)
    const timer = new AcquireTimer();
    let held = 0;
    // a connection belongs to the session it was acquired in: once that session is replaced (a statement ran over
    // its time), the rest of its transaction fails instead of running, uncommitted, in the new one; a ROLLBACK is
    // already true and succeeds
    const connectionOf = (generation: number): Connection => {
      const run = (
        sql: string,
        params: ReadonlyArray<unknown>,
        rowMode: "object" | "array",
      ): Effect.Effect<ReadonlyArray<unknown>, SqlError> =>
        Effect.suspend(() =>
          statements.generation() === generation
            ? Effect.tryPromise({ try: () => statements.run(sql, params, rowMode), catch: toSqlError })
            : isRollback.test(sql)
            ? Effect.succeed([])
            : Effect.fail(
              new SqlError({
                message:
                  "the embedded database session was restarted during this transaction; it was rolled back",
              }),
            )
        );
      const connection: Connection = {
        execute: (sql, params, transform) =>
          Effect.map(
            run(sql, params, "object"),
            (rows) => transform ? transform(rows as ReadonlyArray<object>) : rows,
          ),
        executeRaw: (sql, params) => Effect.map(run(sql, params, "object"), (rows) => ({ rows })),
        executeValues: (sql, params) =>
          Effect.map(run(sql, params, "array"), (rows) => rows as ReadonlyArray<ReadonlyArray<unknown>>),
        executeUnprepared: (sql, params, transform) => connection.execute(sql, params, transform),
        executeStream: (sql, params, transform) =>
          Stream.flatMap(Stream.fromEffect(connection.execute(sql, params, transform)), Stream.fromIterable),
      };
      return connection;
    };
    // waiting for the session stays interruptible (a caller's timeout ends the wait at once); holding it is
    // released with the scope
    const acquire = Effect.uninterruptibleMask((restore) =>
      Effect.suspend(() => {
        const startedAt = timer.started();
        return Effect.zipRight(
          restore(Effect.flatMap(FiberRef.get(backgroundStatements), (background) => lock.take(background)))
            .pipe(
              Effect.onInterrupt(() => Effect.sync(() => timer.gaveUp())),
            ),
          Effect.zipRight(
            Effect.addFinalizer(() =>
              Effect.sync(() => {
                held--;
                lock.release();
              })
            ),
            Effect.sync(() => {
              timer.acquired(startedAt);
              held++;
              return connectionOf(statements.generation());
            }),
          ),
        );
      })
    );
    const client = yield* Client.make({
      acquirer: acquire,
      transactionAcquirer: acquire,
      compiler: PgClient.makeCompiler(),
      spanAttributes: [],
      beginTransaction: "BEGIN READ WRITE",
    });
    registerContention(client, () => lock.contention());
    registerPoolUse(client, () => ({
      open: 1,
      busy: held,
      waiting: timer.waiting,
      acquisitions: timer.acquisitions,
      waitSeconds: timer.waitSeconds,
      ...(statements.restarts ? { restarts: statements.restarts() } : {}),
    }));
    return client;
  });

/** A SqlClient over an already open PGlite in this thread; the caller owns the PGlite's lifetime. */
export const makePgliteSqlClientFrom = (
  db: PGlite,
  o: { readonly readOnly?: boolean } = {},
): Effect.Effect<SqlClient, SqlError, Reactivity> =>
  Effect.gen(function* () {
    if (o.readOnly) {
      yield* Effect.tryPromise({
        try: () => db.exec("set default_transaction_read_only = on"),
        catch: (cause) => new SqlError({ cause, message: "cannot make the PGlite session read-only" }),
      });
    }
    return yield* makeClient({
      run: async (sql, params, rowMode) =>
        (params.length === 0 && rowMode === "object"
          ? await db.exec(sql).then((rs) => rs[rs.length - 1] ?? { rows: [] })
          : await db.query<unknown>(sql, params as unknown[], { rowMode })).rows,
      generation: () => 0,
    });
  });

/** Opens a PGlite database in this thread for the scope's lifetime and returns a SqlClient over it. */
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

/**
 * Opens a PGlite database in a worker of its own for the scope's lifetime and returns a SqlClient over it: a
 * statement over the session's `statement_timeout` fails with SQLSTATE 57014, as on PostgreSQL. Statements
 * queued behind it (waiting for the single session) then run in the reopened database.
 */
export const makePgliteWorkerSqlClient = (
  o: PgliteSessionOptions,
): Effect.Effect<
  { readonly sql: SqlClient; readonly session: PgliteSession },
  SqlError,
  Scope.Scope | Reactivity
> =>
  Effect.gen(function* () {
    const session = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const session = new PgliteSession(o);
          try {
            await session.open();
          } catch (e) {
            await session.close();
            throw e;
          }
          return session;
        },
        catch: (cause) =>
          new SqlError({
            cause,
            message: `cannot open the embedded database ${o.dataDir}: ${
              cause instanceof Error ? cause.message : String(cause)
            }`,
          }),
      }),
      (session) => Effect.promise(() => session.close()),
    );
    const sql = yield* makeClient({
      run: (sql, params, rowMode) => session.query(sql, params, rowMode),
      generation: () => session.generation,
      restarts: () => session.restarts,
    });
    return { sql, session };
  });
