/**
 * Pools, addresses, UTxOs, transactions and DReps through the explorer, and the public pool-info and stake-account:
 * values against SQL on the same chain, paging, caching headers, and every malformed or unknown id.
 */
import assert from "node:assert/strict";
import { bech32 } from "@scure/base";
import { startRestFixture } from "../support/rest.ts";

/** A bech32 string with its last checksum character changed. */
const brokenChecksum = (text: string) => text.slice(0, -1) + (text.endsWith("q") ? "p" : "q");

Deno.test({
  name: "explorer pools, addresses, transactions, DReps; public pool-info and stake-account",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startRestFixture("explorer_accounts");
    try {
      const [pool] = await f.query<{ view: string; hex: string; pledge: string; margin: number }>(
        "mainnet",
        `select p.view, encode(p.hash_raw, 'hex') as hex, u.pledge::text as pledge, u.margin
         from pool_hash p join pool_update u on u.hash_id = p.id
         where not exists (select 1 from pool_retire r where r.hash_id = p.id)
         order by u.registered_tx_id desc limit 1`,
      );
      const [busy] = await f.query<{ address: string; utxos: number; balance: string }>(
        "mainnet",
        `select o.address, count(*)::int as utxos, sum(o.value)::text as balance from tx_out o
         where o.payment_cred is not null
           and not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)
         group by o.address order by count(*) desc limit 1`,
      );

      await t.step("pool: full detail, pool1 ids; pool_test1 accepted on preprod", async () => {
        const r = await f.get(`/v2/explorer/mainnet/pool/${pool!.view}`);
        assert.equal(r.status, 200);
        assert.equal(r.body.poolId, pool!.hex);
        assert.equal(r.body.poolIdBech32, pool!.view);
        assert.equal(r.body.pledge, pool!.pledge);
        assert.equal(r.body.margin, pool!.margin);
        const [rewards] = await f.query<{ total: string }>(
          "mainnet",
          `select coalesce(sum(r.amount), 0)::text as total from reward r join pool_hash p on p.id = r.pool_id
           where p.view = $1 and r.type in ('leader', 'member')
             and r.spendable_epoch <= (select max(epoch_no) from block)`,
          pool!.view,
        );
        assert.equal(r.body.lifetimeRewards, rewards!.total);
        assert.equal(r.headers.get("cache-control"), "private, max-age=60");
        const [preprodPool] = await f.query<{ view: string }>(
          "preprod",
          "select view from pool_hash order by id limit 1",
        );
        const words = bech32.decode(preprodPool!.view as `${string}1${string}`).words;
        const testId = bech32.encode("pool_test", words);
        const byTestId = await f.get(`/v2/explorer/preprod/pool/${testId}`);
        assert.equal(byTestId.status, 200);
        assert.equal(byTestId.body.poolIdBech32, preprodPool!.view, "responses carry pool1 ids");
      });

      await t.step("public pool-info: the network from the id, the spec's short fields", async () => {
        const r = await f.get(`/api/public/pool-info?poolId=${pool!.view}`);
        assert.equal(r.status, 200);
        const full = (await f.get(`/v2/explorer/mainnet/pool/${pool!.view}`)).body;
        assert.deepEqual(r.body, {
          poolId: full.poolId,
          poolIdBech32: full.poolIdBech32,
          ticker: full.ticker,
          name: full.name,
          description: full.description,
          margin: full.margin,
          fixedCost: full.fixedCost,
          pledge: full.pledge,
          activeStake: full.activeStake,
          delegatorCount: full.delegatorCount,
          blocksLifetime: full.lifetimeBlocks,
          blocksEpoch: full.epochBlocks,
          relays: full.relays,
        });
        const [preprodPool] = await f.query<{ view: string }>(
          "preprod",
          "select view from pool_hash order by id limit 1",
        );
        const testId = bech32.encode(
          "pool_test",
          bech32.decode(preprodPool!.view as `${string}1${string}`).words,
        );
        assert.equal(
          (await f.get(`/api/public/pool-info?poolId=${testId}`)).body.poolIdBech32,
          preprodPool!.view,
        );
        assert.equal(
          (await f.get(`/api/public/pool-info?poolId=${preprodPool!.view}&network=preprod`)).status,
          200,
        );
      });

      await t.step("address: balance and counts against SQL; stake and Byron addresses", async () => {
        const r = await f.get(`/v2/explorer/mainnet/address/${busy!.address}`);
        assert.equal(r.status, 200);
        assert.equal(r.body.balance, busy!.balance);
        assert.equal(r.body.utxoCount, busy!.utxos);
        assert.equal(r.body.address, busy!.address);
        assert.ok(["base", "enterprise", "script", "pointer"].includes(r.body.type));
        const again = await f.get(`/v2/explorer/mainnet/address/${busy!.address}`);
        assert.deepEqual(again.body, r.body, "the kept summary answers the same");
        const [stake] = await f.query<{ view: string; balance: string }>(
          "mainnet",
          `select s.view, sum(o.value)::text as balance from tx_out o join stake_address s on s.id = o.stake_address_id
           where not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)
           group by s.view order by count(*) desc limit 1`,
        );
        const byStake = await f.get(`/v2/explorer/mainnet/address/${stake!.view}`);
        assert.equal(byStake.body.type, "reward");
        assert.equal(byStake.body.balance, stake!.balance);
        const [byron] = await f.query<{ address: string }>(
          "mainnet",
          "select address from tx_out where address not like 'addr%' limit 1",
        );
        if (byron) {
          assert.equal((await f.get(`/v2/explorer/mainnet/address/${byron.address}`)).body.type, "byron");
        }
      });

      await t.step("address UTxOs: pages of unspent outputs, total from the summary", async () => {
        const first = await f.get(`/v2/explorer/mainnet/address/${busy!.address}/utxos?limit=100`);
        assert.equal(first.status, 200);
        assert.deepEqual([first.body.total, first.body.page, first.body.pageSize], [busy!.utxos, 1, 100]);
        assert.equal(first.body.hasMore, busy!.utxos > 100);
        const expected = await f.query<{ hash: string; index: number; value: string }>(
          "mainnet",
          `select encode(t.hash, 'hex') as hash, o.index, o.value::text as value
           from tx_out o join tx t on t.id = o.tx_id
           where o.address = $1
             and not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)
           order by o.id limit 100 offset 100`,
          busy!.address,
        );
        const second = await f.get(`/v2/explorer/mainnet/address/${busy!.address}/utxos?page=2&limit=100`);
        assert.deepEqual(
          second.body.data.map((u: { txHash: string; outputIndex: number; value: string }) => [
            u.txHash,
            u.outputIndex,
            u.value,
          ]),
          expected.map((e) => [e.hash, e.index, e.value]),
        );
        const unused = bech32.encode(
          "addr",
          bech32.toWords(new Uint8Array(57).fill(7).fill(0x01, 0, 1)),
          1023,
        );
        const empty = await f.get(`/v2/explorer/mainnet/address/${unused}/utxos`);
        assert.deepEqual(empty.body, { total: 0, page: 1, pageSize: 25, hasMore: false, data: [] });
      });

      await t.step("tx: in full, against SQL, cached", async () => {
        const [tx] = await f.query<{ hash: string; fee: string; outputs: number; certs: number }>(
          "mainnet",
          `select encode(t.hash, 'hex') as hash, t.fee::text as fee,
                  (select count(*)::int from tx_out o where o.tx_id = t.id) as outputs,
                  (select count(*)::int from delegation d where d.tx_id = t.id) as certs
           from tx t where exists (select 1 from delegation d where d.tx_id = t.id) order by t.id desc limit 1`,
        );
        const r = await f.get(`/v2/explorer/mainnet/tx/${tx!.hash}`);
        assert.equal(r.status, 200);
        assert.equal(r.body.hash, tx!.hash);
        assert.equal(r.body.fee, tx!.fee);
        assert.equal(r.body.outputs.length, tx!.outputs);
        assert.ok(
          r.body.certificates.filter((c: { type: string }) => c.type === "delegation").length >= tx!.certs,
        );
        const etag = r.headers.get("etag")!;
        const cached = await fetch(`${f.service.base}/v2/explorer/mainnet/tx/${tx!.hash}`, {
          headers: { apikey: f.key, "if-none-match": etag },
        });
        assert.equal(cached.status, 304);
        await cached.body?.cancel();
      });

      await t.step("DReps: pages, activeOnly", async () => {
        const all = await f.get("/v2/explorer/mainnet/dreps?pageSize=100");
        assert.equal(all.status, 200);
        const [n] = await f.query<{ n: number }>(
          "mainnet",
          `select count(*)::int as n from drep_hash h
           where h.raw is null or exists (select 1 from drep_registration r where r.drep_hash_id = h.id)`,
        );
        assert.equal(all.body.total, n!.n);
        const active = await f.get("/v2/explorer/mainnet/dreps?pageSize=100&activeOnly=true");
        assert.ok(active.body.total <= all.body.total);
        assert.ok(active.body.data.every((d: { isActive: boolean }) => d.isActive));
        const types = new Set(all.body.data.map((d: { type: string }) => d.type));
        assert.ok(types.has("registered") && types.has("abstain") && types.has("noConfidence"));
      });

      await t.step("stake-account: by prefix on either network", async () => {
        const [account] = await f.query<{ view: string }>(
          "mainnet",
          `select s.view from stake_address s join stake_registration r on r.addr_id = s.id order by s.id limit 1`,
        );
        const r = await f.get(`/api/public/stake-account?address=${account!.view}`);
        assert.equal(r.status, 200);
        assert.equal(typeof r.body.registered, "boolean");
        assert.match(r.body.rewardsBalance, /^\d+$/);
        const [utxo] = await f.query<{ v: string }>(
          "mainnet",
          `select coalesce(sum(o.value), 0)::text as v from tx_out o join stake_address s on s.id = o.stake_address_id
           where s.view = $1
             and not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)`,
          account!.view,
        );
        assert.equal(BigInt(r.body.totalStake), BigInt(utxo!.v) + BigInt(r.body.rewardsBalance));
        const [preprodAccount] = await f.query<{ view: string }>(
          "preprod",
          "select view from stake_address order by id limit 1",
        );
        const p = await f.get(`/api/public/stake-account?address=${preprodAccount!.view}`);
        assert.equal(p.status, 200);
        const unknown = bech32.encode("stake", bech32.toWords(new Uint8Array(29).fill(9).fill(0xe1, 0, 1)));
        assert.deepEqual((await f.get(`/api/public/stake-account?address=${unknown}`)).body, {
          registered: false,
          delegatedPoolId: null,
          rewardsBalance: "0",
          totalStake: "0",
        });
      });

      await t.step("bad ids and parameters: 400 naming the parameter; unknown things: 404", async () => {
        const byron = "Ae2tdPwUPEZFRbyhz3cpfC2CumGzNkFBN2L42rcUc2yjQpEkxDbkPodpMAi";
        const cases: Array<[string, number, RegExp]> = [
          [
            `/v2/explorer/mainnet/pool/${brokenChecksum(pool!.view)}`,
            400,
            /^Invalid poolId: is not valid bech32/,
          ],
          [
            `/v2/explorer/mainnet/pool/${busy!.address}`,
            400,
            /^Invalid poolId: has prefix addr; a mainnet pool/,
          ],
          [
            `/v2/explorer/mainnet/pool/${bech32.encode("pool_test", bech32.decode(pool!.view).words)}`,
            400,
            /^Invalid poolId: has prefix pool_test; a mainnet pool id starts with pool1$/,
          ],
          [
            `/v2/explorer/mainnet/pool/${bech32.encode("pool", bech32.toWords(new Uint8Array(20)))}`,
            400,
            /holds 20 bytes; a pool id holds 28/,
          ],
          [
            `/v2/explorer/mainnet/pool/${bech32.encode("pool", bech32.toWords(new Uint8Array(28)))}`,
            404,
            /is not registered on mainnet$/,
          ],
          [
            `/v2/explorer/mainnet/address/${brokenChecksum(busy!.address)}`,
            400,
            /^Invalid addr: is not valid bech32/,
          ],
          [
            `/v2/explorer/mainnet/address/${
              bech32.encode("addr_test", bech32.toWords(new Uint8Array(57)), 1023)
            }`,
            400,
            /^Invalid addr: has prefix addr_test; a mainnet address starts with addr1$/,
          ],
          [`/v2/explorer/mainnet/address/${byron.slice(0, -1)}x`, 400, /^Invalid addr: /],
          [`/v2/explorer/mainnet/address/not-an-address`, 400, /^Invalid addr: /],
          [
            `/v2/explorer/mainnet/address/${
              bech32.encode("addr", bech32.toWords(new Uint8Array(57).fill(7).fill(0x01, 0, 1)), 1023)
            }`,
            404,
            /has no activity on mainnet$/,
          ],
          [
            `/v2/explorer/mainnet/address/${busy!.address}/utxos?page=0`,
            400,
            /^Invalid page: must be at least 1$/,
          ],
          [
            `/v2/explorer/mainnet/address/${busy!.address}/utxos?limit=101`,
            400,
            /^Invalid limit: must be at most/,
          ],
          [
            `/v2/explorer/mainnet/address/${busy!.address}/utxos?limit=x`,
            400,
            /^Invalid limit: must be a number$/,
          ],
          [
            `/v2/explorer/mainnet/tx/${"AB".repeat(32)}`,
            400,
            /^Invalid hash: must be 64 lower-case hexadecimal/,
          ],
          ["/v2/explorer/mainnet/tx/abc", 400, /^Invalid hash: must be 64 lower-case hexadecimal/],
          [`/v2/explorer/mainnet/tx/${"ab".repeat(32)}`, 404, /^Transaction (ab)+ not found on mainnet$/],
          ["/v2/explorer/mainnet/dreps?pageSize=101", 400, /^Invalid pageSize: must be at most 100$/],
          [
            "/v2/explorer/mainnet/dreps?activeOnly=yes",
            400,
            /^Invalid activeOnly: activeOnly must be true or false$/,
          ],
          ["/v2/explorer/devnet/dreps", 400, /^Invalid network: must be mainnet or preprod$/],
          ["/api/public/pool-info", 400, /^Invalid poolId: /],
          ["/api/public/pool-info?poolId=", 400, /^Invalid poolId: poolId is required/],
          [
            `/api/public/pool-info?poolId=${brokenChecksum(pool!.view)}`,
            400,
            /^Invalid poolId: is not valid bech32/,
          ],
          [
            `/api/public/pool-info?poolId=${
              bech32.encode("pool_test", bech32.decode(pool!.view).words)
            }&network=mainnet`,
            400,
            /^Invalid network: is mainnet, but pool_test1… is a preprod pool id$/,
          ],
          [
            `/api/public/pool-info?poolId=${bech32.encode("pool", bech32.toWords(new Uint8Array(28)))}`,
            404,
            /^Pool pool1\w+ is not registered on mainnet$/,
          ],
          ["/api/public/stake-account", 400, /^Invalid address: /],
          [
            `/api/public/stake-account?address=${busy!.address}`,
            400,
            /^Invalid address: has prefix addr; a mainnet/,
          ],
          [`/api/public/stake-account?address=${pool!.view}`, 400, /^Invalid address: has prefix pool/],
          ["/api/public/stake-account?address=stake1abc", 400, /^Invalid address: is not valid bech32/],
          ["/api/public/nothing", 404, /^No route for GET/],
        ];
        for (const [path, status, message] of cases) {
          const r = await f.get(path);
          assert.equal(r.status, status, path);
          assert.deepEqual(Object.keys(r.body).sort(), ["error", "message"], path);
          assert.match(r.body.message, message, `${path}: ${r.body.message}`);
        }
      });
    } finally {
      await f.close();
    }
  },
});
