/**
 * `GET /api/public/pool-status` for the operator's pool (POOL_ID): figures equal to db-sync's, ADA in whole
 * units, relay health by a real TCP connect (a listener on the relay's loopback address is healthy, the rest not),
 * the tip; a clear 404 without POOL_ID.
 */
import assert from "node:assert/strict";
import { startRestFixture } from "../support/rest.ts";
import { createTestEnvironment } from "../support/environment.ts";
import { Effect } from "effect";

Deno.test({
  name: "pool-status",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    // pick, from the same chain the service will serve, a pool with blocks and an IPv4 relay
    const probe = await createTestEnvironment("pool_status_pick");
    const sql = await probe.chainSql("mainnet");
    const [pool] = await Effect.runPromise(
      sql.unsafe<{ view: string; id: string; ipv4: string; port: number }>(`
      select p.view, p.id::text as id, r.ipv4, r.port from pool_hash p
      join pool_update u on u.id = (select max(id) from pool_update where hash_id = p.id)
      join pool_relay r on r.update_id = u.id and r.ipv4 is not null
      where exists (select 1 from slot_leader s join block b on b.slot_leader_id = s.id where s.pool_hash_id = p.id)
      order by p.id limit 1`),
    );
    await probe.close();
    assert.ok(pool, "the demo chain has a block-producing pool with an IPv4 relay");
    const listener = Deno.listen({ hostname: pool.ipv4, port: pool.port });
    const f = await startRestFixture("pool_status", { POOL_ID: pool.view });
    const unset = await startRestFixture("pool_status_unset");
    try {
      await t.step("the pool's figures, in whole ADA, with relay health and the tip", async () => {
        const r = await f.get("/api/public/pool-status");
        assert.equal(r.status, 200, JSON.stringify(r.body));
        const [expected] = await f.query<Record<string, number>>(
          "mainnet",
          `with tip as (select block_no, slot_no, epoch_no from block where block_no is not null order by id desc limit 1)
           select (select floor(coalesce(sum(amount), 0) / 1000000) from epoch_stake
                   where pool_id = $1 and epoch_no = (select epoch_no from tip))::int8::int as stake,
                  (select count(*) from epoch_stake where pool_id = $1 and epoch_no = (select epoch_no from tip))::int as delegators,
                  (select count(*) from block b join slot_leader s on s.id = b.slot_leader_id
                   where s.pool_hash_id = $1)::int as lifetime,
                  (select count(*) from block b join slot_leader s on s.id = b.slot_leader_id
                   where s.pool_hash_id = $1 and b.epoch_no = (select epoch_no from tip))::int as epoch,
                  (select block_no from tip) as block, (select slot_no from tip)::int as slot,
                  (select epoch_no from tip) as tip_epoch`,
          Number(pool.id),
        );
        assert.equal(r.body.activeStake, expected!.stake);
        assert.equal(r.body.delegators, expected!.delegators);
        assert.equal(r.body.lifetimeBlocks, expected!.lifetime);
        assert.equal(r.body.blocksMinted, expected!.epoch);
        assert.deepEqual(r.body.network, {
          tip: { slot: expected!.slot, epoch: expected!.tip_epoch, block: expected!.block },
        });
        assert.equal(typeof r.body.margin, "number");
        assert.ok(Number.isInteger(r.body.pledge));
        const listening = r.body.relays.find((x: { name: string }) => x.name === `${pool.ipv4}:${pool.port}`);
        assert.deepEqual(listening, { name: `${pool.ipv4}:${pool.port}`, healthy: true });
        for (const other of r.body.relays.filter((x: { name: string }) => x !== listening)) {
          assert.equal(other.healthy, false, other.name);
        }
        assert.equal(r.headers.get("cache-control"), "no-store");
      });
      await t.step("without POOL_ID: 404 saying what to configure", async () => {
        const r = await unset.get("/api/public/pool-status");
        assert.equal(r.status, 404);
        assert.match(r.body.message, /set POOL_ID/);
      });
    } finally {
      listener.close();
      await f.close();
      await unset.close();
    }
  },
});
