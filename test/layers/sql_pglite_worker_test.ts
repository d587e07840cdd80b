/**
 * PGlite in a worker (`layers/pglite_session.ts`): a statement over its `statement_timeout` is cancelled with
 * PostgreSQL's timeout error while this thread stays free, the database is reopened and keeps serving, a
 * statement queued behind the slow one runs in the reopened database, and a transaction cut short leaves nothing
 * behind while what was committed stays.
 */
import assert from "node:assert/strict";
import * as Reactivity from "@effect/experimental/Reactivity";
import type { SqlClient } from "@effect/sql/SqlClient";
import { Effect, type Scope } from "effect";
import { makePgliteWorkerSqlClient } from "@layers/sql_pglite.ts";
import { poolUseOf } from "@layers/pool_use.ts";
import { runStatement } from "@src/graphql/execute.ts";

/** Minutes of work on PGlite: always over any limit below. */
const heavy = "select count(*)::text as data from generate_series(1, 30000) a, generate_series(1, 30000) b";

const withWorkerDb = async (
  body: (sql: SqlClient, restarts: Array<string>) => Effect.Effect<void, unknown, Scope.Scope>,
) => {
  const dataDir = await Deno.makeTempDir({ prefix: "cds-pglite-worker-" });
  const restarts: Array<string> = [];
  try {
    await Effect.runPromise(
      Effect.gen(function* () {
        const { sql } = yield* makePgliteWorkerSqlClient({ dataDir, onRestart: (r) => restarts.push(r) });
        yield* body(sql, restarts);
      }).pipe(Effect.scoped, Effect.provide(Reactivity.layer)),
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
};

/** The longest gap between ticks of a 5 ms timer while `work` runs: how long this thread was blocked. */
const longestStall = async <A>(work: Promise<A>): Promise<{ result: A; stallMs: number }> => {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 5);
  try {
    return { result: await work, stallMs };
  } finally {
    clearInterval(timer);
  }
};

Deno.test({
  name: "a statement over its time is cancelled with SQLSTATE 57014, and the database keeps serving",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withWorkerDb((sql, restarts) =>
      Effect.gen(function* () {
        yield* sql`create table t (x int)`;
        yield* sql`insert into t values (1), (2)`;
        const started = performance.now();
        const { result, stallMs } = yield* Effect.promise(() =>
          longestStall(Effect.runPromise(Effect.either(runStatement(sql, heavy, [], 500))))
        );
        const elapsed = performance.now() - started;
        assert.equal(result._tag, "Left");
        if (result._tag === "Left") {
          assert.match(result.left.message, /canceling statement due to statement timeout/);
          assert.equal((result.left.cause as { code?: string }).code, "57014");
        }
        assert.ok(elapsed >= 450 && elapsed < 3_000, `cancelled after ${elapsed.toFixed(0)} ms`);
        // on this thread the statement would stall the timer for its whole 500 ms; a shared machine's scheduling
        // alone can delay a tick by tens of milliseconds
        assert.ok(stallMs < 250, `this thread was blocked for ${stallMs.toFixed(0)} ms`);
        assert.equal(restarts.length, 1);
        // reopened: the data is there, and the time limit was the statement's own
        const rows = yield* sql<{ n: string; t: string }>`
          select count(*) as n, current_setting('statement_timeout') as t from t`;
        assert.deepEqual(rows, [{ n: "2", t: "0" }]);
        assert.deepEqual(yield* runStatement(sql, "select 'fine' as data", [], 500), [{ data: "fine" }]);
      })
    ),
});

Deno.test({
  name: "a statement queued behind a cancelled one runs in the reopened database",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withWorkerDb((sql) =>
      Effect.gen(function* () {
        const slow = yield* Effect.fork(Effect.either(runStatement(sql, heavy, [], 400)));
        yield* Effect.sleep("50 millis");
        const queued = yield* Effect.fork(sql<{ x: number }>`select 42 as x`);
        yield* Effect.sleep("50 millis");
        // what the metrics read (cds_db_connections_*): the session busy, one caller in its queue
        const during = poolUseOf(sql)!;
        assert.deepEqual([during.open, during.busy, during.waiting, during.restarts], [1, 1, 1, 0]);
        assert.deepEqual(yield* queued.await.pipe(Effect.flatten), [{ x: 42 }]);
        const cancelled = yield* slow.await;
        assert.equal(cancelled._tag, "Success");
        if (cancelled._tag === "Success") assert.equal(cancelled.value._tag, "Left");
        const after = poolUseOf(sql)!;
        assert.deepEqual([after.busy, after.waiting, after.restarts], [0, 0, 1]);
        assert.ok(after.acquisitions >= 2);
        assert.ok(
          after.waitSeconds >= 0.2,
          `the queued one waited for the cancelled one: ${after.waitSeconds} s`,
        );
      })
    ),
});

Deno.test({
  name: "a transaction whose statement is cancelled leaves nothing behind; earlier commits stay",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withWorkerDb((sql) =>
      Effect.gen(function* () {
        yield* sql`create table block (id int primary key, note text)`;
        yield* sql.withTransaction(
          sql`insert into block select g, 'committed' from generate_series(1, 1000) g`,
        );
        const written = yield* Effect.either(sql.withTransaction(Effect.gen(function* () {
          yield* sql`insert into block select g, 'half' from generate_series(1001, 50000) g`;
          yield* sql`set local statement_timeout = 300`;
          yield* sql.unsafe(heavy);
          yield* sql`insert into block values (99999, 'after')`;
        })));
        assert.equal(written._tag, "Left");
        if (written._tag === "Left") assert.match(written.left.message, /statement timeout/);
        const rows = yield* sql<{ note: string; n: string }>`
          select note, count(*) as n from block group by note order by note`;
        assert.deepEqual(rows, [{ note: "committed", n: "1000" }]);
        // the session is usable for writes again, in transactions and out
        yield* sql.withTransaction(sql`insert into block values (1001, 'later')`);
        const [after] = yield* sql<{ n: string }>`select count(*) as n from block`;
        assert.equal(after!.n, "1001");
      })
    ),
});

Deno.test({
  name: "a long write cut short by its time limit is rolled back whole",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withWorkerDb((sql) =>
      Effect.gen(function* () {
        yield* sql`create table t (x int, pad text)`;
        yield* sql`insert into t values (0, 'kept')`;
        const cut = yield* Effect.either(sql.withTransaction(Effect.gen(function* () {
          yield* sql`set local statement_timeout = 400`;
          // an autocommitted-sized bulk write, still running when the worker is terminated
          yield* sql`insert into t select g, repeat('x', 200) from generate_series(1, 100000000) g`;
        })));
        assert.equal(cut._tag, "Left");
        const [count] = yield* sql<{ n: string }>`select count(*) as n from t`;
        assert.equal(count!.n, "1");
        const check = yield* sql<{ x: number }>`select x from t`;
        assert.deepEqual(check, [{ x: 0 }]);
      })
    ),
});
