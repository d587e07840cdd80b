/**
 * The schema we create for embedded and test databases is db-sync 13.7.2's, column for column: every table of
 * shared/reference/cardano-db-sync-schema.json (core layout) with its types (domain names included),
 * nullability, primary key, unique constraints and indexes, read back from the PostgreSQL catalog.
 */
import assert from "node:assert/strict";
import { Effect } from "effect";
import { extraIndexStatements, indexNamesIn, readSchemaFile } from "@src/dbsync/schema_files.ts";
import { createTestDatabase, type TestDatabase } from "../support/databases.ts";

interface RefColumn {
  name: string;
  type: string;
  domain: string | null;
  nullable: boolean;
}
interface RefTable {
  kind: string;
  variantOnly?: unknown;
  columns: Array<RefColumn>;
  primaryKey: Array<string>;
  uniqueConstraints?: Array<{ name: string; columns: Array<string> }>;
  indexes?: Array<{ name: string; columns: Array<string>; method?: string; origin: string }>;
  runtimeUnique?: Array<{ name: string; columns: Array<string> }>;
}
const reference: { tables: Record<string, RefTable> } = JSON.parse(
  await Deno.readTextFile(new URL("../../../shared/reference/cardano-db-sync-schema.json", import.meta.url)),
);
const tables = Object.entries(reference.tables).filter(([, t]) => t.kind === "table" && !t.variantOnly);

const q = <A extends object>(db: TestDatabase, text: string) => Effect.runPromise(db.sql.unsafe<A>(text));

Deno.test({
  name: "created db-sync schema",
  sanitizeResources: false,
  fn: async (t) => {
    const db = await createTestDatabase("schema_conformance");
    try {
      await q(db, await readSchemaFile("dbsync_schema.sql"));
      await q(db, await readSchemaFile("dbsync_indexes.sql"));
      for (const statement of await extraIndexStatements()) await q(db, statement);

      const columns = await q<
        { table: string; name: string; type: string; nullable: string; position: number }
      >(
        db,
        `select c.table_name as table, c.column_name as name, c.ordinal_position as position,
                coalesce(c.domain_name, format_type(a.atttypid, a.atttypmod)) as type, c.is_nullable as nullable
         from information_schema.columns c
         join pg_attribute a on a.attrelid = ('public.' || c.table_name)::regclass and a.attname = c.column_name
         where c.table_schema = 'public' order by c.table_name, c.ordinal_position`,
      );
      const constraints = await q<{ table: string; name: string; kind: string; columns: Array<string> }>(
        db,
        `select cl.relname as table, co.conname as name, co.contype as kind,
                array(select a.attname::text from unnest(co.conkey) with ordinality k(n, o)
                      join pg_attribute a on a.attrelid = co.conrelid and a.attnum = k.n order by k.o) as columns
         from pg_constraint co join pg_class cl on cl.oid = co.conrelid
         join pg_namespace ns on ns.oid = cl.relnamespace where ns.nspname = 'public' and co.contype in ('p', 'u')`,
      );
      const indexes = await q<{ table: string; name: string; method: string; columns: Array<string> }>(
        db,
        `select t.relname as table, i.relname as name, am.amname as method,
                array(select a.attname::text from unnest(ix.indkey) with ordinality k(n, o)
                      join pg_attribute a on a.attrelid = t.oid and a.attnum = k.n order by k.o) as columns
         from pg_index ix join pg_class i on i.oid = ix.indexrelid join pg_class t on t.oid = ix.indrelid
         join pg_am am on am.oid = i.relam join pg_namespace ns on ns.oid = t.relnamespace
         where ns.nspname = 'public'`,
      );

      await t.step("has exactly the reference tables of the core layout", () => {
        const created = new Set(columns.map((c) => c.table));
        created.delete("epoch");
        created.delete("epoch_current");
        assert.deepEqual([...created].sort(), tables.map(([name]) => name).sort());
      });

      for (const [name, table] of tables) {
        await t.step(`table ${name}`, () => {
          const got = columns.filter((c) => c.table === name);
          assert.deepEqual(
            got.map((c) => `${c.name} ${c.type}${c.nullable === "NO" ? " not null" : ""}`),
            table.columns.map((c) => `${c.name} ${c.domain ?? c.type}${c.nullable ? "" : " not null"}`),
            `${name}: columns, order, types and nullability`,
          );
          const pk = constraints.find((c) => c.table === name && c.kind === "p");
          assert.deepEqual(pk?.columns ?? [], table.primaryKey, `${name}: primary key`);
          const uniques = constraints.filter((c) => c.table === name && c.kind === "u");
          const expectedUniques = [...(table.uniqueConstraints ?? []), ...(table.runtimeUnique ?? [])];
          assert.deepEqual(
            uniques.map((u) => `${u.name}(${u.columns.join(",")})`).sort(),
            expectedUniques.map((u) => `${u.name}(${u.columns.join(",")})`).sort(),
            `${name}: unique constraints`,
          );
          for (const index of table.indexes ?? []) {
            if (!/^(stage[34]|primary key|constraint)/.test(index.origin)) continue;
            const found = indexes.find((i) => i.name === index.name);
            assert.ok(found, `${name}: index ${index.name} exists`);
            assert.equal(found.table, name, `${index.name}: table`);
            assert.deepEqual(found.columns, index.columns, `${index.name}: columns`);
            assert.equal(found.method, index.method ?? "btree", `${index.name}: method`);
          }
        });
      }

      await t.step("epoch is the 13.7.2 view with the reference columns", () => {
        const got = columns.filter((c) => c.table === "epoch").map((c) => `${c.name} ${c.type}`);
        const expected = reference.tables.epoch!.columns.map((c) => `${c.name} ${c.type}`);
        assert.deepEqual(got, expected);
      });

      await t.step("our extra indexes exist and running the operator script again is harmless", async () => {
        const names = indexNamesIn(await readSchemaFile("extra_indexes.sql"));
        assert.ok(names.length >= 15);
        for (const n of names) assert.ok(indexes.some((i) => i.name === n), `${n} exists`);
        for (const statement of await extraIndexStatements()) await q(db, statement);
      });
    } finally {
      await db.close();
    }
  },
});
