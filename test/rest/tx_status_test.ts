/** `GET /api/public/tx-status`: found with block, confirmations and fee; not found; per network; bad input → 400. */
import assert from "node:assert/strict";
import { startRestFixture } from "../support/rest.ts";

Deno.test({
  name: "tx-status",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startRestFixture("tx_status");
    try {
      const [tip] = await f.query<{ n: number }>("mainnet", "select max(block_no) as n from block");
      const sample = await f.query<{ hash: string; block_no: number | null; time: Date; fee: string }>(
        "mainnet",
        `select encode(t.hash, 'hex') as hash, b.block_no, b.time, t.fee::text as fee from tx t
         join block b on b.id = t.block_id where t.id in (1, 5000, (select max(id) from tx)) order by t.id`,
      );

      await t.step("a confirmed transaction: block, time, confirmations = tip - block + 1, fee", async () => {
        for (const tx of sample.filter((s) => s.block_no !== null)) {
          const r = await f.get(`/api/public/tx-status?txHash=${tx.hash}`);
          assert.equal(r.status, 200);
          assert.deepEqual(r.body, {
            found: true,
            blockNo: tx.block_no,
            blockTime: tx.time.toISOString(),
            confirmations: tip!.n - tx.block_no! + 1,
            fee: tx.fee,
          });
          assert.equal(r.headers.get("cache-control"), "private, max-age=5");
        }
      });

      await t.step("a genesis transaction is found, outside any numbered block", async () => {
        const r = await f.get(`/api/public/tx-status?txHash=${sample[0]!.hash}`);
        assert.equal(r.body.found, true);
        assert.equal(r.body.blockNo, null);
        assert.equal(r.body.confirmations, tip!.n + 2, "every numbered block plus the genesis pseudo-block");
      });

      await t.step("not found, and looked up on the network asked for", async () => {
        const unknown = "ab".repeat(32);
        assert.deepEqual((await f.get(`/api/public/tx-status?txHash=${unknown}`)).body, {
          found: false,
          blockNo: null,
          blockTime: null,
          confirmations: null,
        });
        const mainnetTx = sample[1]!.hash;
        assert.equal(
          (await f.get(`/api/public/tx-status?txHash=${mainnetTx}&network=preprod`)).body.found,
          false,
        );
        const [preprodTx] = await f.query<{ hash: string }>(
          "preprod",
          "select encode(hash, 'hex') as hash from tx where id = 4000",
        );
        assert.equal(
          (await f.get(`/api/public/tx-status?txHash=${preprodTx!.hash}&network=preprod`)).body.found,
          true,
        );
      });

      await t.step("an ETag, and 304 Not Modified for a client that already has the answer", async () => {
        const url = `${f.service.base}/api/public/tx-status?txHash=${sample[1]!.hash}`;
        const first = await fetch(url, { headers: { apikey: f.key } });
        await first.body?.cancel();
        const etag = first.headers.get("etag");
        assert.match(etag ?? "", /^W\/"[0-9a-z]+"$/);
        const again = await fetch(url, { headers: { apikey: f.key, "if-none-match": etag! } });
        assert.equal(again.status, 304);
        assert.equal(await again.text(), "");
        assert.equal(again.headers.get("etag"), etag);
        assert.equal(again.headers.get("cache-control"), "private, max-age=5");
        const other = await fetch(url, { headers: { apikey: f.key, "if-none-match": 'W/"other"' } });
        assert.equal(other.status, 200);
        await other.body?.cancel();
      });

      await t.step("malformed input answers 400 naming the parameter", async () => {
        const cases: Array<[string, string]> = [
          ["", "Invalid txHash: is missing"],
          ["?txHash=abc", "Invalid txHash: must be 64 lower-case hexadecimal characters"],
          [`?txHash=${"AB".repeat(32)}`, "Invalid txHash: must be 64 lower-case hexadecimal characters"],
          [`?txHash=${"ab".repeat(32)}&network=testnet`, "Invalid network: must be mainnet or preprod"],
        ];
        for (const [query, message] of cases) {
          const r = await f.get(`/api/public/tx-status${query}`);
          assert.equal(r.status, 400, query);
          assert.deepEqual(r.body, { error: "Bad Request", message });
        }
      });
    } finally {
      await f.close();
    }
  },
});
