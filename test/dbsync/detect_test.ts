/**
 * Start-up detection of what a chain database is: release, layout, spent-output tracking, missing indexes; and a
 * clear refusal of what the service cannot answer correctly (address-table variant, pre-13.6, not db-sync).
 */
import assert from "node:assert/strict";
import { Effect, Either } from "effect";
import { createDbSyncIndexes, createDbSyncTables, createExtraIndexes } from "@src/dbsync/create_schema.ts";
import { type DbSyncInfo, describeDbSync, detectDbSync } from "@src/dbsync/detect.ts";
import { createTestDatabase, type TestDatabase, testDatabaseUrl } from "../support/databases.ts";
import { startService } from "../support/service.ts";

const exec = (db: TestDatabase, text: string) => Effect.runPromise(db.sql.unsafe(text));
const detect = (db: TestDatabase) => Effect.runPromise(Effect.either(detectDbSync(db.sql)));

const detected = async (db: TestDatabase): Promise<DbSyncInfo> => {
  const result = await detect(db);
  if (Either.isLeft(result)) assert.fail(`expected a supported database, got: ${result.left.message}`);
  return result.right;
};
const refusal = async (db: TestDatabase): Promise<string> => {
  const result = await detect(db);
  if (Either.isRight(result)) assert.fail(`expected a refusal, got: ${describeDbSync(result.right)}`);
  assert.equal(result.left._tag, "DbSyncUnsupported");
  return result.left.message;
};

/** A fresh database with db-sync 13.7.2's schema, its indexes and ours. */
const withSchema = async (label: string, f: (db: TestDatabase) => Promise<void>) => {
  const db = await createTestDatabase(label);
  try {
    await Effect.runPromise(
      Effect.all([createDbSyncTables(db.sql), createDbSyncIndexes(db.sql), createExtraIndexes(db.sql)]),
    );
    await f(db);
  } finally {
    await db.close();
  }
};

// the genesis pseudo-block, one real block and a transaction in it (no inputs stored)
const oneBlockWithATx = `
  insert into slot_leader (hash, description) values ('\\x00', 'genesis');
  insert into block (hash, epoch_no, slot_no, epoch_slot_no, block_no, slot_leader_id, size, time, tx_count,
                     proto_major, proto_minor)
  values ('\\x01', null, null, null, null, 1, 0, '2026-01-01', 1, 0, 0),
         ('\\x02', 0, 10, 10, 1, 1, 300, '2026-01-01 00:00:10', 1, 10, 0);
  insert into tx (hash, block_id, block_index, out_sum, fee, size, valid_contract, script_size)
  values ('\\x10', 1, 0, 1000, 0, 0, true, 0), ('\\x11', 2, 0, 800, 200, 300, true, 0);
  insert into tx_out (tx_id, index, address, address_has_script, value)
  values (1, 0, 'addr_test1genesis', false, 1000), (2, 0, 'addr_test1x', false, 800);`;

Deno.test("a fresh 13.7.2 core database is detected as such, with nothing missing", async () => {
  await withSchema("detect_fresh", async (db) => {
    const info = await detected(db);
    assert.deepEqual(
      info,
      {
        schemaVersion: { stageOne: 15, stageTwo: 50, stageThree: 6 },
        release: "13.7.2",
        layout: "core",
        epochIs: "view",
        spentTracking: "enable",
        spentTrackingEvidence: "default (no extra_migrations token)",
        txInPopulated: false,
        hasChain: false,
        missingDbSyncIndexes: [],
        missingExtraIndexes: [],
      } satisfies DbSyncInfo,
    );
    assert.equal(
      describeDbSync(info),
      "db-sync 13.7.2 schema (15/50/6); core layout; epoch is a view; spent outputs from tx_in (enable mode); " +
        "holds no block yet",
    );
  });
});

Deno.test("indexes not (yet) there are reported: db-sync's by name, ours unless an equivalent exists", async () => {
  await withSchema("detect_missing", async (db) => {
    await exec(
      db,
      `drop index idx_tx_out_tx_id; alter table reward drop constraint unique_reward;
       drop index idx_cds_ma_tx_out_ident; drop index idx_cds_tx_in_tx_out_id_tx_out_index_tx_in_id;
       drop index idx_cds_delegation_vote_drep_hash_id; drop index idx_cds_tx_out_address;`,
    );
    // an index on our keys that lacks the column ours carries does not serve its index-only lookups (our own
    // earlier index, say)
    await exec(db, `create index idx_cds_tx_in_tx_out_id_tx_out_index on tx_in (tx_out_id, tx_out_index)`);
    assert.ok(
      (await detected(db)).missingExtraIndexes.includes("idx_cds_tx_in_tx_out_id_tx_out_index_tx_in_id"),
    );
    // an operator's own indexes that serve the same queries (Blockfrost's, say) count as present
    await exec(
      db,
      `create unique index bf_tx_in_out on tx_in (tx_out_id, tx_out_index) include (tx_in_id);
       create index bf_delegation_vote on delegation_vote (drep_hash_id, addr_id, tx_id, id);
       create index other_tx_out_address on tx_out (address);
       create index hash_ma_tx_out_ident on ma_tx_out using hash (ident)`,
    );
    const info = await detected(db);
    assert.deepEqual(info.missingDbSyncIndexes, ["idx_tx_out_tx_id", "unique_reward"]);
    // a btree serves our hash index's equality lookups; a hash index cannot stand in for our btree
    assert.deepEqual(info.missingExtraIndexes, ["idx_cds_ma_tx_out_ident"]);
    const line = describeDbSync(info);
    assert.match(
      line,
      /; missing db-sync indexes \(created near the tip\): idx_tx_out_tx_id, unique_reward;/,
    );
    assert.match(
      line,
      /; missing recommended indexes \(run schemas\/db\/extra_indexes\.sql\): idx_cds_ma_tx_out_ident$/,
    );
  });
});

Deno.test("the consumed spent-output mode comes from extra_migrations and needs consumed_by_tx_id's index", async () => {
  await withSchema("detect_consumed", async (db) => {
    await exec(
      db,
      "insert into extra_migrations (token, description) values ('ConsumeTxOutPreviouslySet', 'consumed')",
    );
    const info = await detected(db);
    assert.equal(info.spentTracking, "consumed");
    assert.equal(info.spentTrackingEvidence, "extra_migrations token ConsumeTxOutPreviouslySet");
    assert.deepEqual(info.missingDbSyncIndexes, ["idx_tx_out_consumed_by_tx_id"]);
    assert.match(
      describeDbSync(info),
      /spent outputs from tx_out\.consumed_by_tx_id \(consumed mode, extra_migrations token ConsumeTxOutPreviouslySet\)/,
    );
    await exec(db, "create index idx_tx_out_consumed_by_tx_id on tx_out (consumed_by_tx_id)");
    await exec(
      db,
      "insert into extra_migrations (token, description) values ('PruneTxOutFlagPreviouslySet', 'p')",
    );
    const pruned = await detected(db);
    assert.equal(pruned.spentTracking, "prune");
    assert.deepEqual(pruned.missingDbSyncIndexes, []);
  });
});

Deno.test("blocks with transactions but an empty tx_in mean inputs are not stored (consumed-style)", async () => {
  await withSchema("detect_no_inputs", async (db) => {
    await exec(db, oneBlockWithATx);
    const info = await detected(db);
    assert.equal(info.hasChain, true);
    assert.equal(info.txInPopulated, false);
    assert.equal(info.spentTracking, "consumed");
    assert.equal(info.spentTrackingEvidence, "tx_in is empty although blocks hold transactions");
    await exec(db, "insert into tx_in (tx_in_id, tx_out_id, tx_out_index) values (2, 1, 0)");
    const enabled = await detected(db);
    assert.equal(enabled.spentTracking, "enable");
    assert.equal(enabled.txInPopulated, true);
    assert.match(describeDbSync(enabled), /; holds a chain$/);
  });
});

Deno.test("the release follows schema_version.stage_two; a 13.6 database (epoch a table) is served", async () => {
  await withSchema("detect_releases", async (db) => {
    for (
      const [stageTwo, release] of [[45, "13.7.0/13.7.1"], [48, "13.7.0/13.7.1"], [51, "unreleased"]] as const
    ) {
      await exec(db, `update schema_version set stage_two = ${stageTwo}`);
      assert.equal((await detected(db)).release, release, `stage_two ${stageTwo}`);
    }
    await exec(db, "update schema_version set stage_two = 44");
    await exec(
      db,
      `drop view epoch; drop view epoch_current;
       create table epoch (id bigserial primary key, out_sum word128type not null, fees lovelace not null,
                           tx_count word31type not null, blk_count word31type not null, no word31type not null,
                           start_time timestamp not null, end_time timestamp not null,
                           constraint unique_epoch unique (no))`,
    );
    const info = await detected(db);
    assert.equal(info.release, "13.6");
    assert.equal(info.epochIs, "table");
    assert.match(describeDbSync(info), /^db-sync 13\.6 schema \(15\/44\/6\); core layout; epoch is a table;/);
  });
});

const refusals: ReadonlyArray<readonly [string, string, RegExp]> = [
  [
    "the address-table variant",
    `alter table tx_out drop column address, drop column address_has_script, drop column payment_cred;
     alter table tx_out add column address_id bigint not null;
     create table address (id bigserial primary key, address varchar not null, raw bytea not null,
                           has_script boolean not null, payment_cred hash28type, stake_address_id bigint);
     insert into extra_migrations (token, description) values ('TxOutAddressPreviouslySet', 'address table')`,
    /^the address-table variant \(tx_out\.address_id\) is not supported yet; use a db-sync database in the default core layout$/,
  ],
  [
    "a release older than 13.6",
    "update schema_version set stage_two = 43",
    /^db-sync 13\.5 \(schema stage_two 43\) is too old: the service needs db-sync 13\.6 or later \(stage_two 44\+\)$/,
  ],
  [
    "a database that is not db-sync",
    "drop table schema_version",
    /^not a cardano-db-sync database \(no schema_version table\)$/,
  ],
  [
    "an unknown layout",
    "alter table tx_out drop column address",
    /^unknown db-sync layout: tx_out has neither an address nor an address_id column$/,
  ],
  [
    "a db-sync that stores no outputs",
    `insert into tx (hash, block_id, block_index, out_sum, fee, size, valid_contract, script_size)
     values ('\\x00', 1, 0, 0, 0, 0, true, 0)`,
    /stores no transaction outputs/,
  ],
];

for (const [what, change, message] of refusals) {
  Deno.test(`detection refuses ${what} with one clear line`, async () => {
    await withSchema("detect_refuse", async (db) => {
      await exec(db, change);
      assert.match(await refusal(db), message);
    });
  });
}

Deno.test("an empty database is not db-sync", async () => {
  const db = await createTestDatabase("detect_empty");
  try {
    assert.equal(await refusal(db), "not a cardano-db-sync database (no schema_version table)");
  } finally {
    await db.close();
  }
});

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
