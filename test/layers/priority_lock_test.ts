/**
 * The embedded session's priority (`layers/priority_lock.ts` in `sql_pglite.ts`): statements marked as background
 * work wait behind interactive ones queued after them, but never for long: after four interactive statements in a
 * row one background statement goes, and every one of them runs. Real PGlite; a transaction holds the session
 * while the statements queue.
 */
import assert from "node:assert/strict";
import * as Reactivity from "@effect/experimental/Reactivity";
import { Deferred, Effect, Fiber } from "effect";
import type { SqlClient } from "@effect/sql/SqlClient";
import { makePgliteSqlClient } from "@layers/sql_pglite.ts";
import { backgroundContention, inBackground } from "@layers/statement_priority.ts";
import { PriorityLock } from "@layers/priority_lock.ts";

const run = <A>(body: Effect.Effect<A, unknown, import("effect").Scope.Scope | Reactivity.Reactivity>) =>
  Effect.runPromise(body.pipe(Effect.scoped, Effect.provide(Reactivity.layer)));

/** A transaction holding the session until `release` is called; the statements asked meanwhile queue. */
const holdSession = (sql: SqlClient) =>
  Effect.gen(function* () {
    const released = yield* Deferred.make<void>();
    const holding = yield* Effect.fork(
      sql.withTransaction(Effect.zipRight(sql`select 1`, Deferred.await(released))),
    );
    yield* Effect.sleep("20 millis");
    return Effect.zipRight(Deferred.succeed(released, undefined), Fiber.join(holding));
  });

Deno.test("embedded session: interactive statements go before background ones queued earlier, within a bound", () =>
  run(Effect.gen(function* () {
    const { sql } = yield* makePgliteSqlClient({});
    const order: Array<string> = [];
    const statement = (name: string) =>
      Effect.tap(sql`select ${name} as name`, () => Effect.sync(() => order.push(name)));
    const release = yield* holdSession(sql);
    const fibers: Array<Fiber.RuntimeFiber<unknown, unknown>> = [];
    for (const name of ["b1", "b2", "b3"]) {
      fibers.push(yield* Effect.fork(inBackground(statement(name))));
      yield* Effect.sleep("2 millis");
    }
    for (const name of ["u1", "u2", "u3", "u4", "u5", "u6"]) {
      fibers.push(yield* Effect.fork(statement(name)));
      yield* Effect.sleep("2 millis");
    }
    yield* release;
    yield* Fiber.joinAll(fibers);
    assert.deepEqual(order, ["u1", "u2", "u3", "u4", "b1", "u5", "u6", "b2", "b3"]);
  })));

Deno.test("embedded session: a background statement waiting alone goes at once, and an interrupted waiter leaves", () =>
  run(Effect.gen(function* () {
    const { sql } = yield* makePgliteSqlClient({});
    const release = yield* holdSession(sql);
    const gone = yield* Effect.fork(sql`select 'gone' as name`);
    const background = yield* Effect.fork(inBackground(sql<{ name: string }>`select 'background' as name`));
    yield* Effect.sleep("5 millis");
    yield* Fiber.interrupt(gone);
    yield* release;
    assert.deepEqual(yield* Fiber.join(background), [{ name: "background" }]);
    assert.deepEqual(yield* sql<{ one: number }>`select 1 as one`, [{ one: 1 }]);
  })));

Deno.test("embedded session: a waiter interrupted just as it is handed the session passes it on", () =>
  run(Effect.gen(function* () {
    const { sql } = yield* makePgliteSqlClient({});
    const release = yield* holdSession(sql);
    const background = yield* Effect.fork(inBackground(sql`select 'read ahead' as name`));
    yield* Effect.sleep("5 millis");
    // the transaction ends and the background waiter is handed the session; it is interrupted before it runs on
    yield* release;
    yield* Fiber.interrupt(background);
    assert.deepEqual(yield* sql<{ one: number }>`select 1 as one`.pipe(Effect.timeout("10 seconds")), [{
      one: 1,
    }]);
  })));

Deno.test("embedded session: interactive statements that meet background work are counted, for a second or two", () =>
  run(Effect.gen(function* () {
    const { sql } = yield* makePgliteSqlClient({});
    assert.equal(backgroundContention(sql), 0);
    // alone, neither kind meets the other
    yield* sql`select 1`;
    yield* inBackground(sql`select 1`);
    assert.equal(backgroundContention(sql), 0);
    // a background statement holds the session: the two interactive ones asked meanwhile met it
    const released = yield* Deferred.make<void>();
    const holding = yield* Effect.fork(
      inBackground(sql.withTransaction(Effect.zipRight(sql`select 1`, Deferred.await(released)))),
    );
    yield* Effect.sleep("20 millis");
    const waiting = [yield* Effect.fork(sql`select 2`), yield* Effect.fork(sql`select 3`)];
    yield* Effect.sleep("5 millis");
    yield* Deferred.succeed(released, undefined);
    yield* Fiber.join(holding);
    yield* Fiber.joinAll(waiting);
    assert.equal(backgroundContention(sql), 2);
    // an interactive statement behind an interactive holder met no background work
    yield* sql`select 4`;
    assert.equal(backgroundContention(sql), 2);
  })));

Deno.test("priority lock: contention is forgotten after two quiet seconds", () =>
  Effect.runPromise(Effect.gen(function* () {
    let now = 0;
    const lock = new PriorityLock(4, () => now);
    yield* lock.take(true);
    // an urgent taker arriving while the background holder has the lock
    const waiter = yield* Effect.fork(lock.take(false));
    yield* Effect.yieldNow();
    assert.equal(lock.contention(), 1);
    lock.release(); // to the urgent waiter
    yield* Fiber.join(waiter);
    lock.release();
    now = 1_500;
    assert.equal(lock.contention(), 1, "the second before still counts");
    now = 3_600;
    assert.equal(lock.contention(), 0);
  })));
