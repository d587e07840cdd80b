/**
 * The GraphQL statement runs under a statement timeout that ends with its transaction: a slow statement is
 * cancelled (PostgreSQL by its own timer; embedded PGlite, which has none, by the worker it runs in being ended,
 * as the service runs it), and the connection's next statement runs without the limit.
 */
import assert from "node:assert/strict";
import * as Reactivity from "@effect/experimental/Reactivity";
import type { SqlClient } from "@effect/sql/SqlClient";
import { Effect, Exit, Scope } from "effect";
import { makePgliteWorkerSqlClient } from "@layers/sql_pglite.ts";
import { runStatement } from "@src/graphql/execute.ts";
import { createTestDatabase, testDatabaseUrl } from "../support/databases.ts";

/** A PostgreSQL database, or an embedded one in a worker as the service opens its chain databases. */
const openDatabase = async (): Promise<{ sql: SqlClient; close: () => Promise<void> }> => {
  if (testDatabaseUrl) return await createTestDatabase("graphql_timeout");
  const dataDir = await Deno.makeTempDir({ prefix: "cds-graphql-timeout-" });
  const scope = Effect.runSync(Scope.make());
  try {
    const { sql } = await Effect.runPromise(
      makePgliteWorkerSqlClient({ dataDir }).pipe(Scope.extend(scope), Effect.provide(Reactivity.layer)),
    );
    return {
      sql,
      close: async () => {
        await Effect.runPromise(Scope.close(scope, Exit.void));
        await Deno.remove(dataDir, { recursive: true });
      },
    };
  } catch (e) {
    await Effect.runPromise(Scope.close(scope, Exit.void));
    await Deno.remove(dataDir, { recursive: true });
    throw e;
  }
};

Deno.test({
  name: "graphql statement timeout",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const db = await openDatabase();
    try {
      const quick = await Effect.runPromise(runStatement(db.sql, "select $1::text as data", ["{}"], 200));
      assert.deepEqual(quick, [{ data: "{}" }]);
      const slow = await Effect.runPromise(
        Effect.either(runStatement(db.sql, "select pg_sleep(2)::text as data", [], 200)),
      );
      assert.equal(slow._tag, "Left");
      assert.match(String(slow._tag === "Left" ? slow.left.cause : ""), /statement timeout/);
      // the limit was local to that transaction
      const [after] = await Effect.runPromise(
        db.sql<{ t: string }>`select current_setting('statement_timeout') as t`,
      );
      assert.equal(after!.t, "0");
      const [readOnly] = await Effect.runPromise(
        db.sql<{ r: string }>`select current_setting('transaction_read_only') as r`,
      );
      assert.equal(readOnly!.r, "off", "and so was read only");
    } finally {
      await db.close();
    }
  },
});
