/**
 * The GraphQL statement runs under a statement timeout that ends with its transaction: a slow statement is
 * cancelled (PostgreSQL; PGlite accepts the setting but has no timer to enforce it), and the connection's next
 * statement runs without the limit.
 */
import assert from "node:assert/strict";
import { Effect } from "effect";
import { runStatement } from "@src/graphql/execute.ts";
import { createTestDatabase } from "../support/databases.ts";

Deno.test({
  name: "graphql statement timeout",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const db = await createTestDatabase("graphql_timeout");
    try {
      const quick = await Effect.runPromise(runStatement(db.sql, "select $1::text as data", ["{}"], 200));
      assert.deepEqual(quick, [{ data: "{}" }]);
      const slow = await Effect.runPromise(
        Effect.either(runStatement(db.sql, "select pg_sleep(2)::text as data", [], 200)),
      );
      if (db.backend === "postgres") {
        assert.equal(slow._tag, "Left");
        assert.match(String(slow._tag === "Left" ? slow.left.cause : ""), /statement timeout/);
      }
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
