/**
 * Explorer blocks, block by number or hash, a block's transactions, and network stats: values against SQL, paging
 * bounds, errors.
 */
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

      await t.step("a block's transactions: block order, paged, linked from the block", async () => {
        const [busiest] = await f.query<{ n: number; hash: string; txs: number }>(
          "mainnet",
          `select b.block_no as n, encode(b.hash, 'hex') as hash, count(t.id)::int as txs
           from block b join tx t on t.block_id = b.id where b.block_no is not null
           group by b.id order by count(t.id) desc, b.id limit 1`,
        );
        assert.ok(busiest && busiest.txs >= 3, "the demo chain has a block with several transactions");
        const expected = await f.query<Record<string, unknown>>(
          "mainnet",
          `select encode(t.hash, 'hex') as hash, t.block_index as "blockIndex", t.fee::text as fee,
                  t.out_sum::text as "totalOutput", coalesce(t.deposit, 0)::text as deposit, t.size,
                  t.valid_contract as "validContract"
           from tx t join block b on b.id = t.block_id where b.block_no = $1 order by t.block_index`,
          busiest.n,
        );
        const all = await f.get(`/v2/explorer/mainnet/block/${busiest.n}/txs?limit=100`);
        assert.equal(all.status, 200);
        assert.deepEqual(all.body, {
          total: busiest.txs,
          page: 1,
          pageSize: 100,
          hasMore: false,
          data: expected.map((r) => ({ ...r, blockIndex: Number(r.blockIndex), size: Number(r.size) })),
        });
        const page2 = await f.get(`/v2/explorer/mainnet/block/${busiest.hash}/txs?page=2&limit=2`);
        assert.deepEqual(page2.body.data, all.body.data.slice(2, 4));
        assert.equal(page2.body.hasMore, busiest.txs > 4);
        assert.equal(page2.headers.get("cache-control"), "private, max-age=86400");
        const past = await f.get(`/v2/explorer/mainnet/block/${busiest.n}/txs?page=1000&limit=100`);
        assert.deepEqual([past.status, past.body.data, past.body.total], [200, [], busiest.txs]);
        // the block answer names where its transactions are, and following it gives them
        const block = await f.get(`/v2/explorer/mainnet/block/${busiest.n}`);
        const link = block.headers.get("link");
        assert.equal(link, `</v2/explorer/mainnet/block/${busiest.hash}/txs>; rel="transactions"`);
        const followed = await f.get(`${link!.slice(1, link!.indexOf(">"))}?limit=100`);
        assert.deepEqual(followed.body.data, all.body.data);
        assert.equal(block.body.txCount, followed.body.total);
        const empty = await f.query<{ n: number }>(
          "mainnet",
          "select block_no as n from block where block_no is not null and tx_count = 0 limit 1",
        );
        if (empty[0]) {
          const none = await f.get(`/v2/explorer/mainnet/block/${empty[0].n}/txs`);
          assert.deepEqual([none.status, none.body.total, none.body.data], [200, 0, []]);
        }
        for (
          const [path, status, message] of [
            ["/v2/explorer/mainnet/block/99999999/txs", 404, /^Block 99999999 not found on mainnet$/],
            [
              `/v2/explorer/mainnet/block/${busiest.n}/txs?limit=101`,
              400,
              /^Invalid limit: must be at most 100$/,
            ],
            ["/v2/explorer/mainnet/block/x/txs", 400, /^Invalid id: /],
          ] as const
        ) {
          const r = await f.get(path);
          assert.equal(r.status, status, path);
          assert.match(r.body.message, message, path);
        }
      });

      await t.step("a block's transactions are an index range (idx_tx_block_id), not a scan", async () => {
        const [block] = await f.query<{ id: string }>(
          "mainnet",
          "select id::text from block where block_no is not null order by tx_count desc limit 1",
        );
        // the statement of src/queries/block_transactions.ts, planned as the service runs it
        const [plan] = await f.query<{ "QUERY PLAN": unknown }>(
          "mainnet",
          `explain (format json)
           select encode(t.hash, 'hex'), t.block_index, t.fee::text, t.out_sum::text,
                  coalesce(t.deposit, 0)::text, t.size, t.valid_contract
           from tx t where t.block_id = $1 order by t.block_index limit 25 offset 0`,
          block!.id,
        );
        const text = JSON.stringify(plan!["QUERY PLAN"]);
        assert.match(text, /"Index Name":"idx_tx_block_id"/, text);
        assert.doesNotMatch(text, /"Seq Scan"/, text);
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
