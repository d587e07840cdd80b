/**
 * `queryLedgerState/stakePools`: the pools db-sync says are registered and not retired, with their current
 * parameters (valid against Ogmios' schema), filtered by id (pool1, or pool_test1 on preprod), with stake on request.
 */
import assert from "node:assert/strict";
import { startRestFixture } from "../support/rest.ts";
import { assertMatchesOgmiosSchema } from "../support/ogmios_schema.ts";

Deno.test({
  name: "queryLedgerState/stakePools",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startRestFixture("stake_pools");
    try {
      await t.step("every registered pool, no retired one, valid against Ogmios' schema", async () => {
        const r = await f.rpc("queryLedgerState/stakePools", undefined);
        assert.equal(r.status, 200);
        await assertMatchesOgmiosSchema("ogmios.json#/properties/QueryLedgerStateStakePoolsResponse", r.body);
        const retired = await f.query<{ view: string }>(
          "mainnet",
          `select p.view from pool_hash p join pool_retire r on r.hash_id = p.id
           where r.retiring_epoch <= (select max(epoch_no) from block)
             and not exists (select 1 from pool_update u where u.hash_id = p.id and u.registered_tx_id > r.announced_tx_id)`,
        );
        const [{ n }] =
          (await f.query<{ n: string }>("mainnet", "select count(*)::text as n from pool_hash")) as [
            { n: string },
          ];
        assert.ok(retired.length > 0, "the demo chain has retired pools");
        assert.equal(Object.keys(r.body.result).length, Number(n) - retired.length);
        for (const { view } of retired) assert.equal(r.body.result[view], undefined, view);
      });

      await t.step("parameters are the latest registration's", async () => {
        const [pool] = await f.query<
          { view: string; pledge: string; cost: string; margin: number; vrf: string }
        >(
          "mainnet",
          `select p.view, u.pledge::text as pledge, u.fixed_cost::text as cost, u.margin, encode(u.vrf_key_hash, 'hex') as vrf
           from pool_hash p join pool_update u on u.id = (select max(id) from pool_update where hash_id = p.id)
           where (select count(*) from pool_update where hash_id = p.id) > 1 limit 1`,
        );
        const r = await f.rpc("queryLedgerState/stakePools", {
          stakePools: [{ id: pool!.view }],
          includeStake: true,
        });
        const view = r.body.result[pool!.view];
        assert.deepEqual(Object.keys(r.body.result), [pool!.view]);
        assert.equal(String(view.pledge.ada.lovelace), pool!.pledge);
        assert.equal(String(view.cost.ada.lovelace), pool!.cost);
        assert.equal(view.vrfVerificationKeyHash, pool!.vrf);
        assert.ok(view.stake.ada.lovelace >= 0);
        assert.ok(view.relays.length >= 1 && view.owners.length >= 1);
      });

      await t.step("on preprod, pool_test1 ids are accepted too; bad ids are -32602", async () => {
        const [pool] = await f.query<{ hash: string; view: string }>(
          "preprod",
          "select encode(hash_raw, 'hex') as hash, view from pool_hash order by id limit 1",
        );
        const { bech32, hex } = await import("@scure/base");
        const testId = bech32.encode("pool_test", bech32.toWords(hex.decode(pool!.hash)));
        const r = await f.rpc("queryLedgerState/stakePools", { stakePools: [{ id: testId }] }, "preprod");
        assert.deepEqual(Object.keys(r.body.result), [pool!.view]);
        const bad = await f.rpc("queryLedgerState/stakePools", { stakePools: [{ id: "pool1notvalid" }] });
        assert.equal(bad.body.error.code, -32602);
        assert.match(bad.body.error.message, /stake pool id "pool1notvalid" is not valid bech32/);
        assert.equal(
          (await f.rpc("queryLedgerState/stakePools", { includeStake: "yes" })).body.error.code,
          -32602,
        );
      });
    } finally {
      await f.close();
    }
  },
});

Deno.test({
  name: "queryLedgerState/liveStakeDistribution: shares of the newest snapshot that add up to 1",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const f = await startRestFixture("stake_distribution");
    try {
      const { body } = await f.rpc("queryLedgerState/liveStakeDistribution");
      await assertMatchesOgmiosSchema(
        "ogmios.json#/properties/QueryLedgerStateLiveStakeDistributionResponse",
        body,
      );
      const shares = Object.values(body.result as Record<string, { stake: string }>).map((v) =>
        v.stake.split("/")
      );
      assert.ok(shares.length > 10);
      const denominators = new Set(shares.map(([, d]) => d));
      // shares are reduced fractions of one total: sum numerator/denominator exactly with BigInt
      const lcm = [...denominators].map((d) => BigInt(d!)).reduce((a, b) => (a * b) / gcd(a, b));
      const sum = shares.reduce((s, [n, d]) => s + BigInt(n!) * (lcm / BigInt(d!)), 0n);
      assert.equal(sum, lcm, "the shares sum to exactly 1");
    } finally {
      await f.close();
    }
  },
});

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));
