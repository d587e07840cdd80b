/**
 * The `/* prepared *\/` mark on PGlite (`layers/pglite_prepared.ts`): a marked statement is prepared once per
 * session and run with its values as literals, answering exactly what the unnamed statement answers for any
 * text (quotes, backslashes, unicode, empty, null) and number; PostgreSQL moves it to a generic plan; values
 * that cannot be literals, unmarked statements and texts past the bound keep the unnamed path; a failed
 * PREPARE leaves nothing recorded; and the embedded chain databases' worker sessions run marked statements so.
 */
import assert from "node:assert/strict";
import * as Reactivity from "@effect/experimental/Reactivity";
import { Effect } from "effect";
import type { PGlite } from "@electric-sql/pglite";
import { openPglite } from "@layers/pglite_open.ts";
import { makePreparedStatements, maxPrepared } from "@layers/pglite_prepared.ts";
import { makePgliteWorkerSqlClient } from "@layers/sql_pglite.ts";

const lookup =
  `/* prepared */ select id, label, amount::text as amount from item where label = $1 and amount >= $2`;

const withDb = async (body: (db: PGlite) => Promise<void>) => {
  const db = await openPglite();
  try {
    await db.exec(`create table item (id serial primary key, label text, amount numeric);
      insert into item (label, amount) select 'l' || i, i from generate_series(1, 2000) i;
      create index on item (label); analyze item`);
    await body(db);
  } finally {
    await db.close();
  }
};

const preparedCount = async (db: PGlite) =>
  Number((await db.query<{ n: number }>("select count(*)::int as n from pg_prepared_statements")).rows[0]!.n);

Deno.test("a marked statement answers as the unnamed one, for any text and number, prepared once", () =>
  withDb(async (db) => {
    const statements = makePreparedStatements(db);
    const labels = ["it's", "back\\slash", "\\x41", "ünï 🦀", "", "a''b", "$1", "'); drop table item; --"];
    for (const label of labels) await db.query("insert into item (label, amount) values ($1, 5)", [label]);
    for (const label of [...labels, "l7", null]) {
      for (const amount of [0, 5n, "3", 7.5]) {
        const unnamed = await db.query(lookup, [label, amount]);
        const viaPrepared = await statements.query(lookup, [label, amount], "object");
        assert.deepEqual(viaPrepared.rows, unnamed.rows, `label ${JSON.stringify(label)}, amount ${amount}`);
      }
    }
    assert.equal((await statements.query<{ id: number }>(lookup, ["it's", 0], "object")).rows.length, 1);
    assert.equal(
      (await db.query("select count(*)::int as n from item")).rows.length,
      1,
      "the table is still there",
    );
    assert.equal(statements.size(), 1);
    assert.equal(await preparedCount(db), 1);
    // array rows as well
    assert.deepEqual((await statements.query(lookup, ["l7", 0], "array")).rows, [[7, "l7", "7"]]);
  }));

Deno.test("PostgreSQL plans a prepared lookup once it has seen it five times: a generic plan after", () =>
  withDb(async (db) => {
    const statements = makePreparedStatements(db);
    for (let i = 1; i <= 10; i++) await statements.query(lookup, [`l${i}`, 0], "object");
    const { rows } = await db.query<{ generic: number; custom: number }>(
      "select generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements",
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.custom, 5);
    assert.equal(rows[0]!.generic, 5);
  }));

Deno.test("unmarked statements, values that are not literals and texts past the bound run unnamed", () =>
  withDb(async (db) => {
    const statements = makePreparedStatements(db);
    await statements.query(lookup.replace("/* prepared */ ", ""), ["l1", 0], "object");
    await statements.query(`/* prepared */ select $1::bytea as b`, [new Uint8Array([1, 2])], "object");
    await statements.query(`/* prepared */ select $1::int[] as a`, [[1, 2]], "object");
    await statements.query(`/* prepared */ select 1 as one`, [], "object");
    assert.equal(await preparedCount(db), 0);
    for (let i = 0; i <= maxPrepared; i++) {
      const { rows } = await statements.query<{ n: number }>(
        `/* prepared */ select $1::int + ${i} as n`,
        [1],
        "object",
      );
      assert.equal(rows[0]!.n, 1 + i);
    }
    assert.equal(statements.size(), maxPrepared);
    assert.equal(await preparedCount(db), maxPrepared);
  }));

Deno.test("a PREPARE that fails records nothing; one made in a transaction rolled back stays usable", () =>
  withDb(async (db) => {
    const statements = makePreparedStatements(db);
    await assert.rejects(
      statements.query(`/* prepared */ select nope from item where id = $1`, [1], "object"),
    );
    assert.equal(statements.size(), 0);
    await db.exec("begin");
    await statements.query(lookup, ["l2", 0], "object");
    await db.exec("rollback");
    assert.deepEqual((await statements.query(lookup, ["l2", 0], "object")).rows, [{
      id: 2,
      label: "l2",
      amount: "2",
    }]);
    assert.equal(await preparedCount(db), 1);
  }));

Deno.test({
  name: "the chain databases' worker sessions run marked statements prepared",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "cds-pglite-prepared-" });
    try {
      await Effect.runPromise(
        Effect.gen(function* () {
          const { sql } = yield* makePgliteWorkerSqlClient({ dataDir, onRestart: () => {} });
          yield* sql.unsafe("create table item (id int primary key, label text)");
          yield* sql.unsafe("insert into item values (1, 'one'), (2, 'two')");
          for (const id of [1, 2, 1]) {
            const rows = yield* sql.unsafe<{ label: string }>(
              `/* prepared */ select label from item where id = $1`,
              [
                id,
              ],
            );
            assert.deepEqual(rows, [{ label: id === 1 ? "one" : "two" }]);
          }
          const names = yield* sql.unsafe<{ n: number }>(
            "select count(*)::int as n from pg_prepared_statements",
          );
          assert.deepEqual(names, [{ n: 1 }]);
        }).pipe(Effect.scoped, Effect.provide(Reactivity.layer)),
      );
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
