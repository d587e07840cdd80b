/**
 * Explorer stats (and the newest blocks page, a transaction's status, Blockfrost's latest block, a block by hash
 * and epoch parameters) are kept encoded per reported tip: a repeated request gets the same bytes and ETag (304 on
 * `If-None-Match`), a new block changes them, and (PostgreSQL) kept bytes are not served while the chain database
 * does not answer: 503, as without them.
 */
import assert from "node:assert/strict";
import { onDatabase } from "../support/on_database.ts";
import { testDatabaseUrl } from "../support/databases.ts";
import { createKey, createTestEnvironment } from "../support/environment.ts";
import { startService } from "../support/service.ts";
import { sleep } from "../support/private_servers.ts";

/** Blocks or allows new connections to database `name`, dropping those open when blocking. */
const setConnections = (name: string, allowed: boolean) =>
  onDatabase(testDatabaseUrl!, async (c) => {
    await c.query(`alter database "${name}" allow_connections ${allowed}`);
    if (!allowed) {
      await c.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1`, [name]);
    }
  });

Deno.test({
  name:
    "explorer stats kept per tip: same bytes at a tip, new ones at the next, none while the database is down",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const environment = await createTestEnvironment("stats_kept");
    // PGlite: the devnet writes a block a second; PostgreSQL (no devnet): the test appends one
    const env: Record<string, string> = {
      ...environment.env,
      ...(testDatabaseUrl ? {} : { DEVNET_BLOCK_SECONDS: "1" }),
    };
    const service = await startService(env);
    try {
      const { key } = await createKey(env, "--tier", "paid", "--name", "stats kept");
      const stats = async (headers: Record<string, string> = {}) => {
        const r = await fetch(`${service.base}/v2/explorer/mainnet/stats`, {
          headers: { apikey: key, ...headers },
        });
        const text = await r.text();
        return { status: r.status, etag: r.headers.get("etag"), text };
      };
      const heightOf = (text: string) => JSON.parse(text).blockHeight as number;
      // the newest blocks page and a block are kept per tip too (src/rest/routes.ts)
      const newest = async () => {
        const r = await fetch(`${service.base}/v2/explorer/mainnet/blocks?page=1&limit=5`, {
          headers: { apikey: key },
        });
        const text = await r.text();
        return { status: r.status, etag: r.headers.get("etag"), text };
      };
      const newestOf = (text: string) => JSON.parse(text).data[0].blockNo as number;
      const pageBefore = await newest();
      await newest(); // kept now, at the tip it was read at
      // a transaction's status counts confirmations from the tip: kept per tip like the rest (src/rest/routes.ts)
      // (the devnet's newest blocks may be empty: pages back until one has a transaction)
      let withTx: { hash: string } | undefined;
      for (let page = 1; page <= 20 && !withTx; page++) {
        const r = await fetch(`${service.base}/v2/explorer/mainnet/blocks?page=${page}&limit=100`, {
          headers: { apikey: key },
        });
        withTx = (await r.json()).data.find((b: { txCount: number }) => b.txCount > 0);
      }
      assert.ok(withTx, "a block with a transaction");
      const txs =
        await (await fetch(`${service.base}/v2/explorer/mainnet/block/${withTx.hash}/txs?page=1&limit=1`, {
          headers: { apikey: key },
        })).json();
      const txHash: string = txs.data[0].hash;
      const status = async () => {
        const r = await fetch(`${service.base}/api/public/tx-status?txHash=${txHash}`, {
          headers: { apikey: key },
        });
        const text = await r.text();
        assert.equal(r.status, 200, text);
        return { etag: r.headers.get("etag"), confirmations: JSON.parse(text).confirmations as number, text };
      };
      let statusBefore = await status();
      for (let i = 0; i < 10; i++) { // a pair at one tip: the same bytes (the second kept, or read at that tip)
        const again = await status();
        if (again.confirmations === statusBefore.confirmations) {
          assert.equal(again.text, statusBefore.text);
          assert.equal(again.etag, statusBefore.etag);
          break;
        }
        statusBefore = again;
      }

      // Blockfrost's latest block and the parameters the providers ask before each transaction (src/blockfrost)
      const bfLatest = async () => {
        const r = await fetch(`${service.base}/api/v0/blocks/latest`, { headers: { project_id: key } });
        const text = await r.text();
        assert.equal(r.status, 200, text);
        return { etag: r.headers.get("etag"), height: JSON.parse(text).height as number, text };
      };
      const bfParameters = async () => {
        const r = await fetch(`${service.base}/api/v0/epochs/latest/parameters`, {
          headers: { project_id: key },
        });
        const text = await r.text();
        return { status: r.status, etag: r.headers.get("etag"), text };
      };
      let latestBefore = await bfLatest();
      for (let i = 0; i < 10; i++) { // a pair at one tip: the same bytes
        const again = await bfLatest();
        if (again.height === latestBefore.height) {
          assert.equal(again.text, latestBefore.text);
          assert.equal(JSON.parse(again.text).confirmations, 0);
          break;
        }
        latestBefore = again;
      }
      // Blockfrost's block by hash: its confirmations count from the tip, so its kept bytes are the tip's
      const bfBlock = async () => {
        const r = await fetch(`${service.base}/api/v0/blocks/${withTx!.hash}`, {
          headers: { project_id: key },
        });
        const text = await r.text();
        assert.equal(r.status, 200, text);
        const { confirmations, height } = JSON.parse(text);
        return {
          etag: r.headers.get("etag"),
          confirmations: confirmations as number,
          height: height as number,
          text,
        };
      };
      let blockBefore = await bfBlock();
      let blockTip = (await bfLatest()).height;
      for (let i = 0; i < 10; i++) { // a pair at one tip: the same bytes, confirmations counted from that tip
        const again = await bfBlock();
        const tipNow = (await bfLatest()).height;
        if (again.confirmations === blockBefore.confirmations && tipNow === blockTip) {
          assert.equal(again.text, blockBefore.text);
          assert.equal(again.etag, blockBefore.etag);
          assert.equal(again.confirmations, tipNow - again.height);
          break;
        }
        blockBefore = again;
        blockTip = tipNow;
      }
      const parameters = await bfParameters();
      if (parameters.status === 200) { // the embedded demo chain keeps epoch_param; a bare chain may not
        const again = await bfParameters();
        assert.equal(again.text, parameters.text);
      }

      let first = await stats();
      await t.step("at one tip: the same bytes and ETag, 304 when the client holds them", async () => {
        // on the devnet a block may land between two requests: a pair at one tip is what is compared
        for (let i = 0; i < 10; i++) {
          first = await stats();
          const again = await stats();
          assert.equal(first.status, 200, first.text);
          if (heightOf(again.text) !== heightOf(first.text)) continue;
          assert.equal(again.text, first.text);
          assert.equal(again.etag, first.etag);
          const held = await stats({ "if-none-match": first.etag! });
          if (held.status === 200 && heightOf(held.text) !== heightOf(first.text)) continue;
          assert.equal(held.status, 304);
          assert.equal(held.text, "");
          return;
        }
        assert.fail("no two answers at one tip");
      });

      await t.step("a new block: new bytes, a new ETag, the tip /health reports", async () => {
        if (testDatabaseUrl) {
          await onDatabase(env.MAINNET_DATABASE_URL!, (c) =>
            c.query(`
              insert into block (id, hash, epoch_no, slot_no, epoch_slot_no, block_no, previous_id, slot_leader_id,
                                 size, time, tx_count, proto_major, proto_minor)
              select id + 1, sha256(hash || '\\x01'::bytea), epoch_no, slot_no + 1, epoch_slot_no + 1, block_no + 1,
                     id, slot_leader_id, size, time + interval '1 second', 0, proto_major, proto_minor
              from block where block_no is not null order by id desc limit 1`));
        }
        let next = first;
        for (let i = 0; i < 100 && heightOf(next.text) <= heightOf(first.text); i++) {
          await sleep(100);
          next = await stats();
        }
        assert.ok(heightOf(next.text) > heightOf(first.text), "the tip moved");
        assert.notEqual(next.etag, first.etag);
        assert.equal((await stats({ "if-none-match": first.etag! })).status, 200, "the old ETag is stale");
        // a fresh answer reads the database, which may hold a block the tip poll (once a second) has not seen
        // yet: the reported tip reaches it (kept answers are only ever the reported tip's: `at` in routes.ts)
        let reported = 0;
        for (let i = 0; i < 100 && reported < heightOf(next.text); i++) {
          if (i > 0) await sleep(100);
          reported = (await (await fetch(`${service.base}/health`)).json()).networks.mainnet.tip.blockNo;
        }
        assert.ok(heightOf(next.text) <= reported, "the reported tip reaches the answer's block");
        // the kept page went with its tip: page 1 now starts at a block past the one it started at
        let page = await newest();
        for (let i = 0; i < 100 && newestOf(page.text) <= newestOf(pageBefore.text); i++) {
          await sleep(100);
          page = await newest();
        }
        assert.equal(page.status, 200, page.text);
        assert.ok(newestOf(page.text) > newestOf(pageBefore.text), "page 1 follows the tip");
        assert.notEqual(page.etag, pageBefore.etag);
        const again = await newest();
        if (newestOf(again.text) === newestOf(page.text)) assert.equal(again.text, page.text);
        // the kept status went with its tip: more confirmations, counted from the tip it now answers at
        const statusAfter = await status();
        assert.ok(
          statusAfter.confirmations > statusBefore.confirmations,
          `${statusAfter.confirmations} > ${statusBefore.confirmations}`,
        );
        assert.notEqual(statusAfter.etag, statusBefore.etag);
        // the kept latest block went with its tip too
        let latest = await bfLatest();
        for (let i = 0; i < 100 && latest.height <= latestBefore.height; i++) {
          await sleep(100);
          latest = await bfLatest();
        }
        assert.ok(latest.height > latestBefore.height, `${latest.height} > ${latestBefore.height}`);
        assert.notEqual(latest.etag, latestBefore.etag);
        // and the kept block by hash: more confirmations, a new ETag
        const blockAfter = await bfBlock();
        assert.ok(
          blockAfter.confirmations > blockBefore.confirmations,
          `${blockAfter.confirmations} > ${blockBefore.confirmations}`,
        );
        assert.notEqual(blockAfter.etag, blockBefore.etag);
      });

      await t.step({
        name: "the chain database unreachable: 503, not the kept bytes; back: 200",
        ignore: !testDatabaseUrl,
        fn: async () => {
          const name = new URL(env.MAINNET_DATABASE_URL!).pathname.slice(1);
          const kept = await stats();
          assert.equal(kept.status, 200);
          assert.equal((await stats()).etag, kept.etag, "answered from the kept bytes");
          await setConnections(name, false);
          try {
            // the tip poll (once a second) finds it gone; the kept bytes (5 s at most) are still there
            let health = "ok";
            for (let i = 0; i < 50 && health === "ok"; i++) {
              await sleep(100);
              health = (await (await fetch(`${service.base}/health`)).json()).networks.mainnet.status;
            }
            assert.equal(health, "unavailable");
            const down = await stats();
            assert.equal(down.status, 503, down.text);
          } finally {
            await setConnections(name, true);
          }
          let back = await stats();
          for (let i = 0; i < 100 && back.status !== 200; i++) {
            await sleep(100);
            back = await stats();
          }
          assert.equal(back.status, 200, back.text);
        },
      });
    } finally {
      await service.stop();
      await environment.close();
    }
  },
});
