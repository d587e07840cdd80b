/**
 * Start-up detection of what a chain database is: release, layout, spent-output tracking, missing indexes; and a
 * clear refusal of what the service cannot answer correctly (address-table variant, pre-13.6, not db-sync).
 */
import assert from "node:assert/strict";
import { Effect } from "effect";
import { describeDbSync, detectDbSync } from "@src/dbsync/detect.ts";
import { extraIndexStatements, readSchemaFile } from "@src/dbsync/schema_files.ts";
import { createTestDatabase, type TestDatabase, testDatabaseUrl } from "../support/databases.ts";
import { startService } from "../support/service.ts";

const exec = (db: TestDatabase, text: string) => Effect.runPromise(db.sql.unsafe(text));
const detect = (db: TestDatabase) => Effect.runPromise(Effect.either(detectDbSync(db.sql)));

const withSchema = async (label: string, f: (db: TestDatabase) => Promise<void>) => {
  const db = await createTestDatabase(label);
  try {
    await exec(db, await readSchemaFile("dbsync_schema.sql"));
    await exec(db, await readSchemaFile("dbsync_indexes.sql"));
    for (const statement of await extraIndexStatements()) await exec(db, statement);
    await f(db);
  } finally {
    await db.close();
  }
};

Deno.test("a fresh 13.7.2 core database is detected as such, with nothing missing", async () => {
  await withSchema("detect_fresh", async (db) => {
    const result = await detect(db);
    assert.equal(result._tag, "Right");
    if (result._tag !== "Right") return;
    assert.deepEqual(result.right, {
      schemaVersion: { stageOne: 15, stageTwo: 50, stageThree: 6 },
      release: "13.7.2",
      layout: "core",
      epochIs: "view",
      spentTracking: "enable",
      hasChain: false,
      missingDbSyncIndexes: [],
      missingExtraIndexes: [],
    });
    assert.equal(
      describeDbSync(result.right),
      "db-sync 13.7.2 schema (15/50/6); core layout; epoch is a view; spent outputs from tx_in; holds no block yet",
    );
  });
});

Deno.test("missing indexes and the consumed spent-output mode are reported", async () => {
  await withSchema("detect_missing", async (db) => {
    await exec(db, "drop index idx_tx_out_tx_id; drop index idx_cds_tx_in_tx_out");
    await exec(
      db,
      "insert into extra_migrations (token, description) values ('ConsumeTxOutPreviouslySet', 'x')",
    );
    const result = await detect(db);
    assert.equal(result._tag, "Right");
    if (result._tag !== "Right") return;
    assert.deepEqual(result.right.missingDbSyncIndexes, ["idx_tx_out_tx_id"]);
    assert.deepEqual(result.right.missingExtraIndexes, ["idx_cds_tx_in_tx_out"]);
    assert.equal(result.right.spentTracking, "consumed");
    const line = describeDbSync(result.right);
    assert.match(line, /missing db-sync indexes \(created near the tip\): idx_tx_out_tx_id/);
    assert.match(
      line,
      /missing recommended indexes \(run schemas\/db\/extra_indexes\.sql\): idx_cds_tx_in_tx_out/,
    );
    assert.match(line, /consumed_by_tx_id \(consumed mode\)/);
  });
});

Deno.test("a 13.6 database (epoch still a table) is served", async () => {
  await withSchema("detect_136", async (db) => {
    await exec(db, "update schema_version set stage_two = 44");
    await exec(db, "drop view epoch; create table epoch (id bigserial primary key, no integer not null)");
    const result = await detect(db);
    assert.equal(result._tag, "Right");
    if (result._tag !== "Right") return;
    assert.equal(result.right.release, "13.6");
    assert.equal(result.right.epochIs, "table");
  });
});

const refusals: ReadonlyArray<[string, string, RegExp]> = [
  [
    "the address-table variant",
    `alter table tx_out drop column address, drop column address_has_script, drop column payment_cred;
     alter table tx_out add column address_id bigint not null;
     create table address (id bigserial primary key, address varchar not null, raw bytea not null)`,
    /^the address-table variant \(tx_out\.address_id\) is not supported yet; use a db-sync database in the default core layout$/,
  ],
  ["a release older than 13.6", "update schema_version set stage_two = 43", /older than 13\.6/],
  ["a database that is not db-sync", "drop table schema_version", /^not a cardano-db-sync database/],
  [
    "a db-sync that stores no outputs",
    `insert into tx (hash, block_id, block_index, out_sum, fee, size, valid_contract, script_size, treasury_donation)
     values ('\\x00', 1, 0, 0, 0, 0, true, 0, 0)`,
    /stores no transaction outputs/,
  ],
];

for (const [what, change, message] of refusals) {
  Deno.test(`detection refuses ${what} with one clear line`, async () => {
    await withSchema("detect_refuse", async (db) => {
      await exec(db, change);
      const result = await detect(db);
      assert.equal(result._tag, "Left");
      if (result._tag === "Left") assert.match(result.left.message, message);
    });
  });
}

Deno.test({
  name: "the service refuses to start on an address-variant database, naming the network and why",
  ignore: !testDatabaseUrl,
  sanitizeResources: false,
  fn: async () => {
    await withSchema("detect_service", async (db) => {
      await exec(db, refusals[0]![1]);
      const dataDir = await Deno.makeTempDir();
      try {
        await assert.rejects(
          startService({ DATA_DIR: dataDir, MAINNET_DATABASE_URL: db.url!, PREPROD_DATABASE_URL: db.url! }),
          (error: Error) => {
            assert.match(error.message, /service exited with 1/);
            assert.match(
              error.message,
              /Cannot start: \w+ chain database \(postgres:\/\/[^)]*\): the address-table variant \(tx_out\.address_id\) is not supported yet/,
            );
            return true;
          },
        );
      } finally {
        await Deno.remove(dataDir, { recursive: true });
      }
    });
  },
});
