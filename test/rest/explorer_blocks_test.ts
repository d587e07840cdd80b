/** Explorer blocks, block by number or hash, and network stats: values against SQL, paging bounds, errors. */
import assert from "node:assert/strict";
import { startRestFixture } from "../support/rest.ts";

Deno.test({
  name: "explorer blocks and stats",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startRestFixture("explorer_blocks");
    try {
      const [tip] = await f.query<{ n: number }>("mainnet", "select max(block_no) as n from block");

      await t.step("blocks: newest first, 25 by default, paged by block number", async () => {
        const r = await f.get("/v2/explorer/mainnet/blocks");
        assert.equal(r.status, 200);
        assert.equal(r.body.total, tip!.n + 1);
        assert.deepEqual([r.body.page, r.body.pageSize, r.body.hasMore], [1, 25, true]);
        assert.deepEqual(
          r.body.data.map((b: { blockNo: number }) => b.blockNo),
          Array.from({ length: 25 }, (_, i) => tip!.n - i),
        );
        const page3 = await f.get("/v2/explorer/mainnet/blocks?page=3&limit=10");
        assert.equal(page3.body.data[0].blockNo, tip!.n - 20);
        const [expected] = await f.query<Record<string, unknown>>(
          "mainnet",
          `select encode(b.hash, 'hex') as hash, b.slot_no::int as slot, b.tx_count::int as txs, b.size,
                  (select coalesce(sum(fee), 0)::text from tx where block_id = b.id) as fees,
                  (select coalesce(sum(out_sum), 0)::text from tx where block_id = b.id) as outputs,
                  (select o.ticker_name from slot_leader l join off_chain_pool_data o on o.pool_id = l.pool_hash_id
                   where l.id = b.slot_leader_id order by o.id desc limit 1) as ticker
           from block b where b.block_no = $1`,
          tip!.n - 20,
        );
        const b = page3.body.data[0];
        assert.deepEqual(
          [b.hash, b.slotNo, b.txCount, b.size, b.totalFees, b.totalOutput, b.poolTicker],
          [
            expected!.hash,
            expected!.slot,
            expected!.txs,
            expected!.size,
            expected!.fees,
            expected!.outputs,
            expected!.ticker,
          ],
        );
        const last = await f.get(
          `/v2/explorer/mainnet/blocks?page=${Math.ceil((tip!.n + 1) / 100)}&limit=100`,
        );
        assert.equal(last.body.hasMore, false);
        assert.equal(last.body.data[last.body.data.length - 1].blockNo, 0);
        assert.deepEqual((await f.get("/v2/explorer/mainnet/blocks?page=100000&limit=100")).body.data, []);
      });

      await t.step("block by number and by hash: the same block, cached longer by hash", async () => {
        const byNumber = await f.get(`/v2/explorer/mainnet/block/${tip!.n - 5}`);
        assert.equal(byNumber.status, 200);
        const byHash = await f.get(`/v2/explorer/mainnet/block/${byNumber.body.hash}`);
        assert.deepEqual(byHash.body, byNumber.body);
        assert.equal(byHash.headers.get("cache-control"), "private, max-age=86400");
        assert.equal(byNumber.body.epochSlotNo, byNumber.body.slotNo % 432_000);
        assert.ok(byNumber.body.poolId === null || byNumber.body.poolId.startsWith("pool1"));
        const genesisLed = await f.get("/v2/explorer/mainnet/block/0");
        assert.equal(genesisLed.body.poolId, null, "epoch 0 blocks are made by genesis delegates");
      });

      await t.step("preprod is its own chain", async () => {
        const r = await f.get("/v2/explorer/preprod/blocks?limit=1");
        const [p] = await f.query<{ hash: string }>(
          "preprod",
          "select encode(hash, 'hex') as hash from block order by id desc limit 1",
        );
        assert.equal(r.body.data[0].hash, p!.hash);
      });

      await t.step("stats: tip, epoch progress, totals, pots and active stake", async () => {
        const r = await f.get("/v2/explorer/mainnet/stats");
        assert.equal(r.status, 200);
        const [e] = await f.query<Record<string, string | number>>(
          "mainnet",
          `with t as (select block_no, slot_no, epoch_no, epoch_slot_no from block where block_no is not null order by id desc limit 1),
                p as (select * from ada_pots order by epoch_no desc limit 1)
           select t.block_no, t.slot_no::int as slot, t.epoch_no, t.epoch_slot_no,
                  (select count(*)::int from tx t2 join block b on b.id = t2.block_id where b.epoch_no is not null) as txs,
                  (p.utxo + p.rewards)::text as circulating, p.treasury::text as treasury, p.reserves::text as reserves,
                  (select sum(amount)::text from epoch_stake where epoch_no = t.epoch_no) as active,
                  (select count(distinct pool_id)::int from epoch_stake where epoch_no = t.epoch_no) as pools,
                  (select count(*)::int from epoch_stake where epoch_no = t.epoch_no and amount > 0) as delegators
           from t, p`,
        );
        assert.deepEqual(r.body, {
          blockHeight: e!.block_no,
          slotNo: e!.slot,
          epochNo: e!.epoch_no,
          epochProgress: Math.round((Number(e!.epoch_slot_no) / 432_000) * 10_000) / 100,
          totalTransactions: e!.txs,
          circulatingSupply: e!.circulating,
          treasury: e!.treasury,
          reserves: e!.reserves,
          activeStake: e!.active,
          activePools: e!.pools,
          activeDelegators: e!.delegators,
        });
      });

      await t.step("bad input: 400 naming the parameter; unknown block: 404", async () => {
        const cases: Array<[string, number, RegExp]> = [
          ["/v2/explorer/mainnet/blocks?limit=101", 400, /^Invalid limit: must be at most 100$/],
          ["/v2/explorer/mainnet/blocks?limit=0", 400, /^Invalid limit: must be at least 1$/],
          ["/v2/explorer/mainnet/blocks?page=0", 400, /^Invalid page: must be at least 1$/],
          ["/v2/explorer/mainnet/blocks?page=two", 400, /^Invalid page: must be a number$/],
          ["/v2/explorer/testnet/blocks", 400, /^Invalid network: must be mainnet or preprod$/],
          ["/v2/explorer/mainnet/block/xyz", 400, /^Invalid id: must be a block number or a 64-character/],
          ["/v2/explorer/mainnet/block/-1", 400, /^Invalid id: /],
          ["/v2/explorer/mainnet/block/99999999", 404, /^Block 99999999 not found on mainnet$/],
          [`/v2/explorer/mainnet/block/${"ab".repeat(32)}`, 404, /not found on mainnet/],
          ["/v2/explorer/mainnet/nothing", 404, /^No route for GET/],
        ];
        for (const [path, status, message] of cases) {
          const r = await f.get(path);
          assert.equal(r.status, status, path);
          assert.match(r.body.message, message, path);
        }
      });
    } finally {
      await f.close();
    }
  },
});
