/**
 * A chain database given as several URLs (layers/chain_replicas.ts), on two real PostgreSQL databases holding the
 * same demo chain (the second made from the first as a template): reads spread over both; one lagging past
 * REPLICA_MAX_LAG_BLOCKS is taken out and the tip is the lowest of those in use; one not answering is taken out
 * while the service still answers and /ready stays 200; each comes back once caught up; with none left /ready
 * is 503 until one answers. A wrong URL at start leaves that member down and the service serving. Blocks are
 * added by hand (a copy of the newest row), playing db-sync. The PGlite pass checks the refusal of a list that
 * names anything but PostgreSQL (the embedded database has no replicas).
 */
import assert from "node:assert/strict";
import { Effect } from "effect";
import pg from "pg";
import { onDatabase } from "../support/on_database.ts";
import { seedDemoChainPostgres } from "@src/demo_chain/seed.ts";
import { testDatabaseUrl } from "../support/databases.ts";
import { createKey } from "../support/environment.ts";
import { type RunningService, spawnService, startService } from "../support/service.ts";
import { sleep } from "../support/private_servers.ts";

if (!testDatabaseUrl) {
  console.log(
    "replicas_test: the PostgreSQL cases skipped (TEST_DATABASE_URL unset); the refusal runs on PGlite",
  );
}

Deno.test({
  name: "a database list naming anything but PostgreSQL stops the start with one line naming the entry",
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "cds-replicas-refused-" });
    try {
      const service = spawnService({
        DATA_DIR: dataDir,
        MAINNET_DATABASE_URL: "postgres://postgres@127.0.0.1:5432/a,file:///var/lib/mainnet",
      });
      const code = await service.exited;
      assert.notEqual(code, 0);
      const text = service.lines.join("\n");
      assert.match(
        text,
        /MAINNET_DATABASE_URL: entry 2 of 2: expected a postgres: or postgresql:\/\/ URL, got file:/,
      );
      assert.match(text, /replicas are PostgreSQL databases/);
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

const withDatabase = (name: string) => {
  const u = new URL(testDatabaseUrl!);
  u.pathname = `/${name}`;
  return u.toString();
};

const admin = async (text: string) => {
  const c = new pg.Client({ connectionString: testDatabaseUrl });
  await c.connect();
  try {
    return (await c.query(text)).rows;
  } finally {
    await c.end();
  }
};

const tipOf = (url: string) =>
  onDatabase(url, async (c) => Number((await c.query("select max(block_no) as n from block")).rows[0].n));

/** Appends `n` blocks after the newest, each a copy of it one slot and one block later (what db-sync would add). */
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

const setConnections = async (name: string, allowed: boolean) => {
  await admin(`alter database "${name}" allow_connections ${allowed}`);
  if (!allowed) {
    await admin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`);
  }
};

interface Member {
  location: string;
  state: string;
  blockNo: number | null;
  reads: number;
  reason?: string;
}

/** `/health`'s mainnet entry as parsed (checked field by field below). */
type MainnetHealth = ReturnType<typeof JSON.parse>;

const getJson = async (url: string, headers: HeadersInit = {}) => {
  const r = await fetch(url, { headers });
  return { status: r.status, body: await r.json() };
};

/** Polls `/health` until `check` holds for mainnet (15 s at most), returning that answer. */
const healthWhen = async (
  base: string,
  what: string,
  check: (mainnet: MainnetHealth) => boolean,
): Promise<MainnetHealth> => {
  let last: MainnetHealth | undefined;
  for (let i = 0; i < 60; i++) {
    last = (await getJson(`${base}/health`)).body.networks?.mainnet;
    if (last && check(last)) return last;
    await sleep(250);
  }
  throw new Error(`${what}: not within 15 s; last mainnet health ${JSON.stringify(last)}`);
};

const statesOf = (mainnet: { members: ReadonlyArray<Member> }) => mainnet.members.map((m) => m.state);

Deno.test({
  name:
    "replicas: reads spread; lagging or lost members out and back once caught up; the tip never goes back",
  ignore: !testDatabaseUrl,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const suffix = crypto.randomUUID().slice(0, 8);
    const [nameA, nameB] = [`test_replica_a_${suffix}`, `test_replica_b_${suffix}`];
    const [urlA, urlB] = [withDatabase(nameA), withDatabase(nameB)];
    const dataDir = await Deno.makeTempDir({ prefix: "cds-replicas-" });
    let service: RunningService | undefined;
    try {
      await admin(`create database "${nameA}"`);
      await Effect.runPromise(seedDemoChainPostgres(urlA, { network: "mainnet", scale: 1 }));
      await admin(`create database "${nameB}" template "${nameA}"`);
      const seededTip = await tipOf(urlA);
      // preprod on the first database too: this test is about mainnet's members
      const env = {
        DATA_DIR: dataDir,
        DEVNET_BLOCK_SECONDS: "0",
        MAINNET_DATABASE_URL: `${urlA},${urlB}`,
        PREPROD_DATABASE_URL: urlA,
        REPLICA_MAX_LAG_BLOCKS: "3",
      };
      const { key } = await createKey(env, "--tier", "paid", "--name", "replicas");
      service = await startService(env);
      const base = service.base;
      const stats = async () => {
        const r = await getJson(`${base}/v2/explorer/mainnet/stats`, { apikey: key });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.blockHeight as number;
      };
      /** Every stats answer's tip, in order: none may be lower than one before it. */
      const seen: Array<number> = [];
      const statsRound = async (n = 6) => {
        for (let i = 0; i < n; i++) seen.push(await stats());
        return seen.slice(-n);
      };

      await t.step("both members in use, reads spread over both, the tip is theirs", async () => {
        // start-up waits for one member; the other joins at a following round (a second at most)
        const before = await healthWhen(base, "both in use", (m) => statesOf(m).join() === "in use,in use");
        const ready = await getJson(`${base}/ready`);
        assert.equal(ready.status, 200);
        assert.deepEqual(ready.body.members.mainnet.map((m: Member) => m.state), ["in use", "in use"]);
        assert.ok(
          ready.body.members.mainnet.every((m: Member) => !m.location.includes("postgres:postgres@")),
        );
        assert.equal(before.tip.blockNo, seededTip);
        assert.deepEqual(await statsRound(10), Array(10).fill(seededTip));
        // stats are kept per tip, so reads come from blocks never asked before
        for (let i = 1; i <= 10; i++) {
          const block = await getJson(`${base}/v2/explorer/mainnet/block/${seededTip - i}`, { apikey: key });
          assert.equal(block.status, 200, JSON.stringify(block.body));
        }
        const after = await healthWhen(
          base,
          "reads on both",
          (m) => m.members.every((x: Member) => x.reads > 0),
        );
        assert.ok(after.members.every((x: Member, i: number) => x.reads > before.members[i].reads));
      });

      await t.step("a member lagging past the bound is taken out; the tip is the other's", async () => {
        await addBlocks(urlA, 5);
        const lagging = await healthWhen(base, "B lagging", (m) => statesOf(m).join() === "in use,lagging");
        assert.match(lagging.members[1].reason, /5 blocks behind/);
        await healthWhen(base, "tip A's", (m) => m.tip?.blockNo === seededTip + 5);
        const readsB = lagging.members[1].reads;
        assert.deepEqual(await statsRound(), Array(6).fill(seededTip + 5));
        const h = await healthWhen(base, "answered", () => true);
        assert.equal(h.members[1].reads, readsB, "nothing read from the lagging member");
      });

      await t.step("within the bound but below the reported tip: catching up, not yet in use", async () => {
        await addBlocks(urlB, 3);
        // the blocks land one by one: wait for the last of them (B is catching up from the first)
        const catching = await healthWhen(
          base,
          "B catching up",
          (m) => m.members[1].state === "catching up" && m.members[1].blockNo === seededTip + 3,
        );
        assert.equal(catching.members[1].blockNo, seededTip + 3);
        assert.equal(catching.tip.blockNo, seededTip + 5, "the tip does not go back");
        assert.deepEqual(await statsRound(), Array(6).fill(seededTip + 5));
      });

      await t.step("caught up: taken back; the tip is the lowest of those in use", async () => {
        await addBlocks(urlB, 2);
        await healthWhen(base, "B back", (m) => statesOf(m).join() === "in use,in use");
        await addBlocks(urlA, 2); // A 2 ahead: within the bound, both stay in use
        const both = await healthWhen(base, "A ahead", (m) => m.members[0].blockNo === seededTip + 7);
        assert.deepEqual(statesOf(both), ["in use", "in use"]);
        assert.equal(both.tip.blockNo, seededTip + 5);
        // a request landing on A (ahead) reports no more than the tip both answer for
        assert.deepEqual(await statsRound(), Array(6).fill(seededTip + 5));
        // stats may be answered from their bytes kept at this tip: the newest blocks, in pages never asked
        // before, read from both members and stop at that tip too
        for (let limit = 1; limit <= 6; limit++) {
          const page = await getJson(`${base}/v2/explorer/mainnet/blocks?limit=${limit}`, { apikey: key });
          assert.equal(page.status, 200, JSON.stringify(page.body));
          assert.equal(page.body.data[0].blockNo, seededTip + 5);
        }
        const h = await healthWhen(base, "answered", () => true);
        assert.ok(h.members[1].reads > both.members[1].reads && h.members[0].reads > both.members[0].reads);
      });

      await t.step("a member not answering is taken out; the service answers, /ready stays 200", async () => {
        await setConnections(nameB, false);
        // the tip is the one left's (ChainTips reads the members' verdict once a second)
        const down = await healthWhen(
          base,
          "B down, the tip A's",
          (m) => m.members[1].state === "down" && m.tip?.blockNo === seededTip + 7,
        );
        assert.equal(down.status, "ok");
        assert.deepEqual(await statsRound(), Array(6).fill(seededTip + 7));
        const ready = await getJson(`${base}/ready`);
        assert.equal(ready.status, 200);
        assert.deepEqual(ready.body.members.mainnet.map((m: Member) => m.state), ["in use", "down"]);
        assert.ok(ready.body.members.mainnet[1].reason);
      });

      await t.step("back: answering but behind, then in use once caught up", async () => {
        await setConnections(nameB, true);
        await healthWhen(base, "B catching up", (m) => m.members[1].state === "catching up");
        await addBlocks(urlB, 2);
        await healthWhen(base, "B in use", (m) => statesOf(m).join() === "in use,in use");
        assert.deepEqual(await statsRound(), Array(6).fill(seededTip + 7));
      });

      await t.step("none in use: /ready 503 and the network unavailable, until one answers", async () => {
        await setConnections(nameA, false);
        await setConnections(nameB, false);
        const gone = await healthWhen(base, "unavailable", (m) => m.status === "unavailable");
        assert.deepEqual(statesOf(gone), ["down", "down"]);
        const ready = await getJson(`${base}/ready`);
        assert.equal(ready.status, 503);
        assert.match(
          ready.body.message,
          /mainnet chain database is down \(no member of the mainnet chain database/,
        );
        const r = await getJson(`${base}/v2/explorer/mainnet/stats`, { apikey: key });
        assert.equal(r.status, 503);
        await setConnections(nameA, true);
        await setConnections(nameB, true);
        await healthWhen(base, "back", (m) => m.status === "ok" && statesOf(m).join() === "in use,in use");
        for (let i = 0; i < 20 && (await getJson(`${base}/ready`)).status !== 200; i++) await sleep(250);
        assert.equal((await getJson(`${base}/ready`)).status, 200);
        await statsRound();
      });

      assert.deepEqual(seen, [...seen].sort((a, b) => a - b), "no answer's tip below an earlier one");
      await service.stop();
      service = undefined;

      await t.step("a member given by a wrong URL at start: down, the others serve", async () => {
        const wrong = "postgres://postgres:secret@127.0.0.1:1/nothing";
        service = await startService({ ...env, MAINNET_DATABASE_URL: `${urlA},${wrong}` });
        const h = await healthWhen(service.base, "started", (m) => m.members[1].state === "down");
        assert.equal(h.members[0].state, "in use");
        assert.equal(h.members[1].location, "postgres://postgres:***@127.0.0.1:1/nothing");
        assert.match(h.members[1].reason, /ECONNREFUSED|connect/i);
        assert.equal((await getJson(`${service.base}/ready`)).status, 200);
        const r = await getJson(`${service.base}/v2/explorer/mainnet/stats`, { apikey: key });
        assert.equal(r.status, 200);
      });
    } finally {
      await service?.stop();
      await setConnections(nameA, true).catch(() => {});
      await setConnections(nameB, true).catch(() => {});
      await admin(`drop database if exists "${nameB}" with (force)`).catch(() => {});
      await admin(`drop database if exists "${nameA}" with (force)`).catch(() => {});
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
