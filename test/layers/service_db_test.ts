/** The service database's migrations: applied in order, once, each all-or-nothing. */
import assert from "node:assert/strict";
import { Effect } from "effect";
import { loadMigrations, migrate } from "@layers/service_db.ts";
import { createTestDatabase } from "../support/databases.ts";

Deno.test("service migrations apply once, in order, and a failing one leaves nothing behind", async () => {
  const db = await createTestDatabase("service_migrations");
  try {
    const shipped = await Effect.runPromise(loadMigrations());
    assert.ok(shipped.length >= 1);
    assert.deepEqual(shipped.map((m) => m.version), [...shipped.map((m) => m.version)].sort((a, b) => a - b));
    const first = await Effect.runPromise(migrate(db.sql, shipped));
    assert.deepEqual(first, shipped.map((m) => m.version));
    assert.deepEqual(await Effect.runPromise(migrate(db.sql, shipped)), []);

    const broken = [
      ...shipped,
      { version: 9001, name: "half", sql: "create table cds.half_done (x int); select no_such_function();" },
    ];
    const failed = await Effect.runPromise(Effect.either(migrate(db.sql, broken)));
    assert.equal(failed._tag, "Left");
    const [left] = await Effect.runPromise(
      db.sql<{ t: string | null }>`select to_regclass('cds.half_done')::text as t`,
    );
    assert.equal(left!.t, null, "the failed migration's table was rolled back");
    const recorded = await Effect.runPromise(
      db.sql<{ version: number }>`select version from cds.schema_migrations`,
    );
    assert.ok(!recorded.some((r) => r.version === 9001));
  } finally {
    await db.close();
  }
});
