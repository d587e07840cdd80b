/**
 * The schema we create for embedded and test databases is db-sync 13.7.2's, column for column: every core-layout
 * table of schemas/reference/cardano-db-sync/schema.json read back from the PostgreSQL catalog (types and domains,
 * nullability, keys, constraints, indexes), the epoch views, and our extra indexes.
 */
import assert from "node:assert/strict";
import { Effect } from "effect";
import {
  coreTables,
  defaultReferenceUrl,
  isDbSyncIndex,
  type Reference,
  renderIndexesSql,
  renderSchemaSql,
} from "../../scripts/gen_dbsync_schema.ts";
import { createDbSyncIndexes, createDbSyncTables, createExtraIndexes } from "@src/dbsync/create_schema.ts";
import { parseExtraIndexes, readExtraIndexes } from "@src/dbsync/extra_indexes.ts";
import { backendName, createTestDatabase, type TestDatabase } from "../support/databases.ts";

const reference: Reference = JSON.parse(await Deno.readTextFile(defaultReferenceUrl));
const tables = coreTables(reference);

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect);
const query = <A extends object>(db: TestDatabase, text: string) => run(db.sql.unsafe<A>(text));

interface ColumnRow {
  table: string;
  name: string;
  position: number;
  domain: string | null;
  dataType: string;
  udt: string;
  precision: number | null;
  scale: number | null;
  nullable: string;
  defaultValue: string | null;
}
interface ConstraintRow {
  table: string;
  name: string;
  kind: string;
  columns: string;
  definition: string;
}
interface IndexRow {
  table: string;
  name: string;
  method: string;
  unique: boolean;
  columns: string;
}

const readCatalog = async (db: TestDatabase) => ({
  columns: await query<ColumnRow>(
    db,
    `select c.table_name::text as "table", c.column_name::text as name, c.ordinal_position::int as position,
            c.domain_name::text as domain, c.data_type::text as "dataType", c.udt_name::text as udt,
            c.numeric_precision::int as precision, c.numeric_scale::int as scale,
            c.is_nullable::text as nullable, c.column_default::text as "defaultValue"
     from information_schema.columns c
     where c.table_schema = current_schema() order by c.table_name, c.ordinal_position`,
  ),
  constraints: await query<ConstraintRow>(
    db,
    `select cl.relname::text as "table", co.conname::text as name, co.contype::text as kind,
            coalesce((select string_agg(a.attname::text, ',' order by k.o) from unnest(co.conkey) with ordinality k(n, o)
                      join pg_attribute a on a.attrelid = co.conrelid and a.attnum = k.n), '') as columns,
            pg_get_constraintdef(co.oid) as definition
     from pg_constraint co join pg_class cl on cl.oid = co.conrelid
     join pg_namespace ns on ns.oid = cl.relnamespace where ns.nspname = current_schema()`,
  ),
  indexes: await query<IndexRow>(
    db,
    `select t.relname::text as "table", i.relname::text as name, am.amname::text as method,
            ix.indisunique as unique,
            (select string_agg(a.attname::text, ',' order by k.o) from unnest(ix.indkey) with ordinality k(n, o)
             join pg_attribute a on a.attrelid = t.oid and a.attnum = k.n) as columns
     from pg_index ix join pg_class i on i.oid = ix.indexrelid join pg_class t on t.oid = ix.indrelid
     join pg_am am on am.oid = i.relam join pg_namespace ns on ns.oid = t.relnamespace
     where ns.nspname = current_schema()`,
  ),
});

/** The base type as the reference writes it: `numeric(20,0)`, `character varying`, an enum's name. */
const baseType = (c: ColumnRow): string =>
  c.dataType === "USER-DEFINED"
    ? c.udt
    : c.dataType === "numeric" && c.precision !== null
    ? `numeric(${c.precision},${c.scale})`
    : c.dataType;

/** Fails once, listing every difference of one table as `table.column: what: expected X, got Y`. */
const assertNoProblems = (table: string, problems: ReadonlyArray<string>) =>
  assert.ok(problems.length === 0, `${table} differs from db-sync 13.7.2:\n  ${problems.join("\n  ")}`);

const expectEqual = (problems: Array<string>, what: string, expected: unknown, got: unknown) => {
  const [e, g] = [JSON.stringify(expected), JSON.stringify(got)];
  if (e !== g) problems.push(`${what}: expected ${e}, got ${g}`);
};

Deno.test("the committed SQL files are what scripts/gen_dbsync_schema.ts generates from the reference", async () => {
  const source = "schemas/reference/cardano-db-sync/schema.json";
  const file = (name: string) => Deno.readTextFile(new URL(`../../schemas/db/${name}`, import.meta.url));
  assert.equal(await file("dbsync_schema.sql"), renderSchemaSql(reference, source), "rerun the generator");
  assert.equal(await file("dbsync_indexes.sql"), renderIndexesSql(reference, source), "rerun the generator");
});

Deno.test("extra_indexes.sql parses into named, commented, idx_cds_ statements", async () => {
  const indexes = await run(readExtraIndexes);
  assert.ok(indexes.length >= 18, `only ${indexes.length} extra indexes`);
  assert.equal(new Set(indexes.map((i) => i.name)).size, indexes.length, "names are unique");
  const coreNames = new Set(tables.map(([name]) => name));
  for (const i of indexes) {
    assert.equal(
      i.name,
      `idx_cds_${i.table}_${[...i.columns, ...i.included].join("_")}`,
      `${i.name}: named after table and columns (keys, then those it includes)`,
    );
    assert.ok(i.name.length <= 63, `${i.name}: longer than PostgreSQL's 63-character names`);
    assert.ok(coreNames.has(i.table), `${i.name}: ${i.table} is a core-layout table`);
    const columns = reference.tables[i.table]!.columns.map((c) => c.name);
    for (const c of [...i.columns, ...i.included]) {
      assert.ok(columns.includes(c), `${i.name}: ${i.table}.${c} exists`);
    }
    assert.match(i.statement, /^CREATE INDEX CONCURRENTLY IF NOT EXISTS /);
    assert.ok(i.purpose.length > 0, `${i.name}: has a comment saying which query needs it`);
  }
  assert.deepEqual(
    indexes.find((i) => i.table === "tx_out")?.method,
    "hash",
    "tx_out.address is a hash index",
  );
  assert.throws(() => parseExtraIndexes("-- x\nCREATE INDEX idx_cds_a ON t (c);\n"), /CONCURRENTLY/);
  assert.throws(
    () => parseExtraIndexes("CREATE INDEX CONCURRENTLY IF NOT EXISTS i ON t (c)\n"),
    /unterminated/,
  );
});

Deno.test({
  name: `created db-sync schema matches the reference catalog (${backendName})`,
  sanitizeResources: false,
  fn: async (t) => {
    const db = await createTestDatabase("schema_conformance");
    try {
      await run(createDbSyncTables(db.sql));
      await run(createDbSyncIndexes(db.sql));
      const extraNames = await run(createExtraIndexes(db.sql));
      const { columns, constraints, indexes } = await readCatalog(db);

      await t.step("domains and enums", async () => {
        const domains = await query<{ name: string; base: string }>(
          db,
          `select t.typname::text as name, format_type(t.typbasetype, t.typtypmod) as base from pg_type t
           join pg_namespace ns on ns.oid = t.typnamespace where ns.nspname = current_schema() and t.typtype = 'd'`,
        );
        const resolve = (base: string): string => {
          const inner = domains.find((d) => d.name === base);
          return inner ? resolve(inner.base) : base;
        };
        assert.deepEqual(
          Object.fromEntries(domains.map((d) => [d.name, resolve(d.base)])),
          reference.domains,
        );
        const enums = await query<{ name: string; labels: string }>(
          db,
          `select t.typname::text as name, string_agg(e.enumlabel::text, ',' order by e.enumsortorder) as labels
           from pg_type t join pg_enum e on e.enumtypid = t.oid join pg_namespace ns on ns.oid = t.typnamespace
           where ns.nspname = current_schema() group by t.typname`,
        );
        assert.deepEqual(
          Object.fromEntries(enums.map((e) => [e.name, e.labels.split(",")])),
          reference.enums,
        );
      });

      await t.step("exactly the reference tables of the core layout (and the epoch views)", () => {
        const created = [...new Set(columns.map((c) => c.table))].sort();
        const expected = [...tables.map(([name]) => name), "epoch", "epoch_current"].sort();
        assert.deepEqual(created, expected);
      });

      for (const [name, table] of tables) {
        await t.step(`table ${name}`, () => {
          const problems: Array<string> = [];
          const got = columns.filter((c) => c.table === name);
          expectEqual(
            problems,
            `${name}: columns in order`,
            table.columns.map((c) => c.name),
            got.map((c) => c.name),
          );
          for (const expected of table.columns) {
            const c = got.find((g) => g.name === expected.name);
            if (!c) continue;
            const at = `${name}.${expected.name}`;
            expectEqual(problems, `${at}: domain`, expected.domain, c.domain);
            expectEqual(problems, `${at}: type`, expected.type, baseType(c));
            expectEqual(problems, `${at}: nullable`, expected.nullable, c.nullable === "YES");
            expectEqual(
              problems,
              `${at}: serial (nextval default)`,
              expected.serial ?? false,
              c.defaultValue?.startsWith("nextval(") ?? false,
            );
          }
          const ofTable = (kind: string) => constraints.filter((c) => c.table === name && c.kind === kind);
          const pkey = table.indexes?.find((i) => i.origin === "primary key");
          expectEqual(
            problems,
            `${name}: primary key`,
            table.primaryKey.length > 0 ? [`${pkey?.name}(${table.primaryKey.join(",")})`] : [],
            ofTable("p").map((c) => `${c.name}(${c.columns})`),
          );
          expectEqual(
            problems,
            `${name}: unique constraints`,
            [...(table.uniqueConstraints ?? []), ...(table.runtimeUnique ?? [])]
              .map((u) => `${u.name}(${u.columns.join(",")})`).sort(),
            ofTable("u").map((c) => `${c.name}(${c.columns})`).sort(),
          );
          expectEqual(
            problems,
            `${name}: foreign keys`,
            (table.foreignKeys ?? []).map((f) => `${f.name}(${f.columns.join(",")}) -> ${f.references}`),
            ofTable("f").map((c) =>
              `${c.name}(${c.columns}) -> ${c.definition.match(/REFERENCES (\w+\(\w+\))/)?.[1]}`
            ),
          );
          expectEqual(
            problems,
            `${name}: check constraints`,
            (table.checks ?? []).map((c) => c.name),
            ofTable("c").map((c) => c.name),
          );
          const wanted = (table.indexes ?? []).filter((i) =>
            isDbSyncIndex(i) || i.origin === "primary key" || i.origin === "constraint"
          );
          for (const index of wanted) {
            const found = indexes.find((i) => i.name === index.name);
            if (!found) {
              problems.push(`${name}: index ${index.name} (${index.origin}) is missing`);
              continue;
            }
            expectEqual(problems, `${index.name}: table`, name, found.table);
            expectEqual(problems, `${index.name}: columns`, index.columns.join(","), found.columns);
            expectEqual(problems, `${index.name}: method`, index.method ?? "btree", found.method);
            expectEqual(problems, `${index.name}: unique`, index.unique ?? false, found.unique);
          }
          const known = new Set([
            ...wanted.map((i) => i.name),
            ...(table.runtimeUnique ?? []).map((u) => u.name),
            ...extraNames,
          ]);
          expectEqual(
            problems,
            `${name}: indexes neither db-sync's nor ours`,
            [],
            indexes.filter((i) => i.table === name && !known.has(i.name)).map((i) => i.name),
          );
          assertNoProblems(name, problems);
        });
      }

      for (const view of ["epoch", "epoch_current"]) {
        await t.step(`${view} is the 13.7.2 view with the reference columns`, async () => {
          const [kind] = await query<{ kind: string }>(
            db,
            `select table_type::text as kind from information_schema.tables
             where table_schema = current_schema() and table_name = '${view}'`,
          );
          assert.equal(kind?.kind, "VIEW");
          assert.deepEqual(
            columns.filter((c) => c.table === view).map((c) => `${c.name} ${baseType(c)}`),
            reference.tables[view]!.columns.map((c) => `${c.name} ${c.type}`),
          );
        });
      }

      await t.step(
        "epoch is empty until epoch_sync_enabled says enabled, then finalised + current",
        async () => {
          await query(
            db,
            `insert into slot_leader (hash, description) values ('\\x00', 'x');
           insert into block (hash, epoch_no, slot_no, epoch_slot_no, block_no, slot_leader_id, size, time, tx_count,
                              proto_major, proto_minor)
           values ('\\x01', 7, 100, 0, 1, 1, 0, '2026-01-01 00:00:00', 1, 10, 0);
           insert into tx (hash, block_id, block_index, out_sum, fee, size, valid_contract, script_size)
           values ('\\x02', 1, 0, 5000000, 170000, 300, true, 0);
           insert into epoch_finalized values (6, 10, 1, 2, 3, 6, '2025-12-27 00:00:00', '2025-12-31 23:59:00')`,
          );
          const epochs = () =>
            query<{ no: string; outSum: string; fees: string; txCount: string; blkCount: string }>(
              db,
              `select no::text, out_sum::text as "outSum", fees::text, tx_count::text as "txCount",
                    blk_count::text as "blkCount" from epoch order by no`,
            );
          assert.deepEqual(await epochs(), []);
          await query(db, "insert into epoch_sync_enabled (enabled) values (true)");
          assert.deepEqual(await epochs(), [
            { no: "6", outSum: "10", fees: "1", txCount: "2", blkCount: "3" },
            { no: "7", outSum: "5000000", fees: "170000", txCount: "1", blkCount: "1" },
          ]);
          await query(db, "truncate slot_leader, block, tx, epoch_finalized, epoch_sync_enabled");
        },
      );

      await t.step("the schema_version row is 13.7.2.1's", async () => {
        const rows = await query<{ v: string }>(
          db,
          "select stage_one || '/' || stage_two || '/' || stage_three as v from schema_version",
        );
        const v = reference.schemaVersionAtRelease;
        assert.deepEqual(rows.map((r) => r.v), [`${v.stage_one}/${v.stage_two}/${v.stage_three}`]);
      });

      await t.step("our extra indexes exist as written, and creating them again is harmless", async () => {
        const extra = await run(readExtraIndexes);
        assert.deepEqual(extraNames, extra.map((i) => i.name));
        for (const i of extra) {
          const found = indexes.find((x) => x.name === i.name);
          assert.ok(found, `${i.name} exists`);
          assert.deepEqual(
            [found.table, found.method, found.columns],
            [i.table, i.method, [...i.columns, ...i.included].join(",")],
            `${i.name}: table, method, columns`,
          );
        }
        await run(createExtraIndexes(db.sql));
        await run(createExtraIndexes(db.sql, { concurrently: false }));
        const after = await readCatalog(db);
        assert.equal(after.indexes.length, indexes.length, "no index added by the second run");
      });
    } finally {
      await db.close();
    }
  },
});
