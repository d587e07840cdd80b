/**
 * Two instances sharing one service database and Redis (layers/cluster_tip.ts), each over its own copy of the
 * demo chain, one copy ahead of the other: requests alternating between the instances in rotation never see the
 * tip (/health and explorer stats) go back; the instance joining behind the tip the other reports is out of
 * rotation (/ready 503) until its database catches up; the tip then waits for the one behind and moves forward
 * once both have the blocks. Blocks are added by hand, playing db-sync. Needs TEST_DATABASE_URL and REDIS_URL
 * (the guarantee needs Redis; the embedded database is one instance), so the PGlite pass skips it.
 */
import assert from "node:assert/strict";
import { Effect } from "effect";
import { onDatabase } from "../support/on_database.ts";
import { seedDemoChainPostgres } from "@src/demo_chain/seed.ts";
import { testDatabaseUrl } from "../support/databases.ts";
import { createKey, redisUrl } from "../support/environment.ts";
import { type RunningService, startService } from "../support/service.ts";
import { sleep } from "../support/private_servers.ts";

const runs = testDatabaseUrl !== undefined && redisUrl !== undefined;
if (!runs) console.log("cluster_tip_test: skipped (it needs TEST_DATABASE_URL and REDIS_URL)");

const withDatabase = (name: string) => {
  const u = new URL(testDatabaseUrl!);
  u.pathname = `/${name}`;
  return u.toString();
};

const admin = (text: string) => onDatabase(testDatabaseUrl!, (c) => c.query(text));

const tipOf = (url: string) =>
  onDatabase(url, async (c) => Number((await c.query("select max(block_no) as n from block")).rows[0].n));

/** Appends `n` blocks after the newest, each a copy of it one slot and one block later (as replicas_test does). */
const addBlocks = (url: string, n: number) =>
  onDatabase(url, async (c) => {
    for (let i = 0; i < n; i++) {
      await c.query(`
        insert into block (id, hash, epoch_no, slot_no, epoch_slot_no, block_no, previous_id, slot_leader_id, size,
                           time, tx_count, proto_major, proto_minor)
        select id + 1, sha256(hash || '\\x01'::bytea), epoch_no, slot_no + 1, epoch_slot_no + 1, block_no + 1, id,
               slot_leader_id, size, time + interval '1 second', 0, proto_major, proto_minor
        from block where block_no is not null order by id desc limit 1`);
    }
  });

const getJson = async (url: string, headers: HeadersInit = {}) => {
  const r = await fetch(url, { headers });
  return { status: r.status, body: await r.json() };
};

Deno.test({
  name: "instances sharing Redis: the tip never goes back across them, and moves on once all have the blocks",
  ignore: !runs,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const suffix = crypto.randomUUID().slice(0, 8);
    const [nameA, nameB, nameS] = [
      `test_cluster_a_${suffix}`,
      `test_cluster_b_${suffix}`,
      `test_cluster_s_${suffix}`,
    ];
    const [ahead, behind] = [withDatabase(nameA), withDatabase(nameB)];
    const dirs = [
      await Deno.makeTempDir({ prefix: "cds-cluster-1-" }),
      await Deno.makeTempDir({ prefix: "cds-cluster-2-" }),
    ];
    const services: Array<RunningService> = [];
    try {
      await admin(`create database "${nameA}"`);
      await Effect.runPromise(seedDemoChainPostgres(ahead, { network: "mainnet", scale: 1 }));
      await admin(`create database "${nameB}" template "${nameA}"`);
      await admin(`create database "${nameS}"`);
      const seeded = await tipOf(ahead);
      await addBlocks(ahead, 3);
      const envOf = (i: number, chain: string) => ({
        DATA_DIR: dirs[i]!,
        DEVNET_BLOCK_SECONDS: "0",
        MAINNET_DATABASE_URL: chain,
        PREPROD_DATABASE_URL: ahead,
        SERVICE_DATABASE_URL: withDatabase(nameS),
        REDIS_URL: redisUrl!,
      });
      const { key } = await createKey(envOf(0, ahead), "--tier", "paid", "--name", "cluster");
      // the one ahead first: the one behind then joins below the tip already reported
      services.push(await startService(envOf(0, ahead)));
      services.push(await startService(envOf(1, behind)));
      const [one, two] = services.map((s) => s.base) as [string, string];

      /** Each instance's answers in order, and all answers in the order a client got them. */
      const seen: Array<number> = [];
      const ask = async (base: string) => {
        const health = await getJson(`${base}/health`);
        assert.equal(health.status, 200);
        const tip = health.body.networks.mainnet.tip.blockNo as number;
        const stats = await getJson(`${base}/v2/explorer/mainnet/stats`, { apikey: key });
        assert.equal(stats.status, 200, JSON.stringify(stats.body));
        for (const n of [tip, stats.body.blockHeight as number]) {
          assert.ok(n >= (seen.at(-1) ?? 0), `the tip went back: ${n} after ${seen.join(", ")}`);
          seen.push(n);
        }
        return tip;
      };
      const ready = async (
        base: string,
      ) => (await fetch(`${base}/ready`).then(async (r) => (await r.body?.cancel(), r.status)));
      /** Alternates over the instances in rotation (as the balancer does) for `rounds`, returning the last tip. */
      const alternate = async (rounds: number) => {
        let tip = 0;
        for (let i = 0; i < rounds; i++) {
          for (const base of [one, two]) if ((await ready(base)) === 200) tip = await ask(base);
          await sleep(100);
        }
        return tip;
      };

      // the one behind reports the tip already reported, not its own, and stays out of rotation
      await alternate(5);
      const health2 = (await getJson(`${two}/health`)).body.networks.mainnet;
      assert.equal(health2.tip.blockNo, seeded + 3, "a newcomer does not pull the tip back");
      assert.equal(await ready(two), 503, "a newcomer behind the reported tip is out of rotation");

      // caught up: both in rotation, one tip
      await addBlocks(behind, 3);
      for (let i = 0; i < 40 && (await ready(two)) !== 200; i++) await sleep(250);
      assert.equal(await ready(two), 200, "in rotation once caught up");
      assert.equal(await alternate(5), seeded + 3);

      // one ahead again: the tip waits for the other...
      await addBlocks(ahead, 2);
      await sleep(2_500);
      assert.equal(await alternate(5), seeded + 3, "the tip waits for the instance behind");
      // ... and moves on once both have the blocks
      await addBlocks(behind, 2);
      let tip = 0;
      for (let i = 0; i < 20 && tip !== seeded + 5; i++) tip = await alternate(2);
      assert.equal(tip, seeded + 5, "the tip moves forward once all caught up");
      assert.ok(seen.length > 20);
    } finally {
      await Promise.all(services.map((s) => s.stop()));
      for (const name of [nameA, nameB, nameS]) {
        await admin(`drop database if exists "${name}" with (force)`).catch(() => {});
      }
      for (const dir of dirs) await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
