/**
 * PostgreSQL and PGlite behind one value contract: the same query returns the same JavaScript values from both
 * (int8/numeric as decimal strings, timestamps as UTC dates, bytea as bytes), and read-only clients refuse writes.
 */
import assert from "node:assert/strict";
import * as Reactivity from "@effect/experimental/Reactivity";
import type { SqlClient } from "@effect/sql/SqlClient";
import { Effect } from "effect";
import { makePgliteSqlClient, makePgliteWorkerSqlClient } from "@layers/sql_pglite.ts";
import { makePgSqlClient } from "@layers/sql_pg.ts";
import { testDatabaseUrl } from "../support/databases.ts";

const probe = (sql: SqlClient) =>
  sql`select 45000000000000001::int8 as big, 123456789012345678901234::numeric(39,0) as huge,
             7::int4 as small, 2::int2 as tiny, 0.0577::float8 as price, true as flag, null::text as nothing,
             '2026-08-01 12:34:56.5'::timestamp as at, '\\xdeadbeef'::bytea as hash, '{"a":[1,"x"]}'::jsonb as doc,
             array[1, 2]::int8[] as ids, 'leader'::text as kind`;

const expected = {
  big: "45000000000000001",
  huge: "123456789012345678901234",
  small: 7,
  tiny: 2,
  price: 0.0577,
  flag: true,
  nothing: null,
  at: new Date("2026-08-01T12:34:56.500Z"),
  hash: new Uint8Array([0xde, 0xad, 0xbe, 0xef]),
  doc: { a: [1, "x"] },
  ids: ["1", "2"],
  kind: "leader",
};

const run = <A>(e: Effect.Effect<A, unknown, Reactivity.Reactivity | import("effect").Scope.Scope>) =>
  Effect.runPromise(e.pipe(Effect.scoped, Effect.provide(Reactivity.layer)));

Deno.test("PGlite returns values in the shared contract", async () => {
  const rows = await run(Effect.flatMap(makePgliteSqlClient({}), ({ sql }) => probe(sql)));
  assert.deepEqual({ ...rows[0] }, expected);
});

Deno.test("PGlite in a worker returns the same values", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cds-sql-worker-" });
  try {
    const rows = await run(Effect.flatMap(makePgliteWorkerSqlClient({ dataDir }), ({ sql }) => probe(sql)));
    assert.deepEqual({ ...rows[0] }, expected);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("a read-only PGlite worker client refuses writes, and transactions still write when asked", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cds-sql-worker-" });
  try {
    await run(Effect.gen(function* () {
      const { sql } = yield* makePgliteWorkerSqlClient({ dataDir, readOnly: true });
      const write = yield* Effect.either(sql`create table t (x int)`);
      assert.equal(write._tag, "Left");
      if (write._tag === "Left") assert.match(write.left.message, /read-only transaction/);
      yield* sql.withTransaction(sql`create temporary table scratch (x int)`);
    }));
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("a read-only PGlite client refuses writes, and transactions still write when asked", async () => {
  await run(Effect.gen(function* () {
    const { sql } = yield* makePgliteSqlClient({ readOnly: true });
    const write = yield* Effect.either(sql`create table t (x int)`);
    assert.equal(write._tag, "Left");
    yield* sql.withTransaction(sql`create temporary table scratch (x int)`);
  }));
});

Deno.test({
  name: "PostgreSQL returns the same values as PGlite",
  ignore: !testDatabaseUrl,
  fn: async () => {
    const rows = await run(Effect.flatMap(makePgSqlClient({ url: testDatabaseUrl! }), probe));
    assert.deepEqual({ ...rows[0] }, expected);
  },
});

Deno.test({
  name: "a read-only PostgreSQL client refuses writes",
  ignore: !testDatabaseUrl,
  fn: async () => {
    await run(Effect.gen(function* () {
      const sql = yield* makePgSqlClient({ url: testDatabaseUrl!, readOnly: true });
      const write = yield* Effect.either(sql`create table should_not_exist (x int)`);
      assert.equal(write._tag, "Left");
      if (write._tag === "Left") assert.match(String(write.left.cause), /read-only transaction/);
    }));
  },
});

Deno.test({
  name: "PostgreSQL prepares the statements marked /* prepared */ once per connection, and only those",
  ignore: !testDatabaseUrl,
  fn: async () => {
    await run(Effect.gen(function* () {
      // one connection: the session that prepared is the one asked
      const sql = yield* makePgSqlClient({ url: testDatabaseUrl!, maxConnections: 1, prepareMarked: true });
      for (const n of [1, 2, 3]) {
        const [marked] = yield* sql<{ n: number }>`/* prepared */ select ${n}::int4 + 1 as n`;
        assert.equal(marked?.n, n + 1);
        const [values] = yield* sql`/* prepared */ select ${n}::int4 as n`.values;
        assert.deepEqual(values, [n]);
        yield* sql`select ${n}::int4 as unmarked`;
      }
      const prepared = yield* sql<{ statement: string }>`select statement from pg_prepared_statements`;
      assert.deepEqual(prepared.map((p) => p.statement.replace(/\$1/, "?")).sort(), [
        "/* prepared */ select ?::int4 + 1 as n",
        "/* prepared */ select ?::int4 as n",
      ]);
    }));
  },
});

Deno.test("an unreachable PostgreSQL fails with a clear message, not a hang", async () => {
  const result = await run(Effect.either(makePgSqlClient({ url: "postgres://nobody@127.0.0.1:1/none" })));
  assert.equal(result._tag, "Left");
  if (result._tag === "Left") assert.match(result.left.message, /^cannot connect to PostgreSQL: /);
});
