/**
 * Explorer answers held to the letter of the interface spec, over HTTP on the demo chain: a pool's saturation
 * within 0.0 to 1.0 (uncapped in saturationRatio), its ros30d against an independent SQL statement (absent for
 * a pool without history), a transaction's deposit never negative (refunds in depositRefund), and the OpenAPI
 * document describing each field beyond the spec's.
 */
import assert from "node:assert/strict";
import { startRestFixture } from "../support/rest.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test({
  name: "explorer: saturation range, ros30d, logo, deposit and refunds",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startRestFixture("explorer_spec_fields");
    try {
      const openapi: Json = (await f.get("/openapi.json")).body;

      await t.step(
        "ros30d: the pool's 30-day annualized return, as SQL computes it; absent without history",
        async () => {
          // independent: per epoch of the window, then summed; numeric arithmetic, 73 five-day epochs a year
          const rows = await f.query<{ view: string; ros: string | null }>(
            "mainnet",
            `with tip as (select epoch_no as e from block where block_no is not null order by id desc limit 1),
                per_epoch as (
                  select p.id, w.e,
                         (select coalesce(sum(r.amount), 0) from reward r where r.pool_id = p.id
                            and r.earned_epoch = w.e and r.type = 'member') as member,
                         (select coalesce(sum(s.amount), 0) from epoch_stake s
                          where s.pool_id = p.id and s.epoch_no = w.e) as stake
                  from pool_hash p, tip, generate_series(tip.e - 7, tip.e - 2) as w(e))
           select h.view, (sum(member)::numeric / nullif(sum(stake), 0) * 73)::text as ros
           from per_epoch join pool_hash h on h.id = per_epoch.id
           group by h.view order by sum(member) desc`,
          );
          const withHistory = rows.filter((r) => r.ros !== null && Number(r.ros) > 0).slice(0, 3);
          const without = rows.filter((r) => r.ros === null).slice(0, 2);
          assert.equal(withHistory.length, 3, "pools with rewards in the window");
          assert.ok(without.length >= 1, "a pool without history");
          for (const pool of withHistory) {
            const r = await f.get(`/v2/explorer/mainnet/pool/${pool.view}`);
            assert.equal(r.status, 200);
            const want = Number(pool.ros);
            assert.ok(
              Math.abs(r.body.ros30d - want) <= 1e-12 * want,
              `${pool.view}: ${r.body.ros30d} vs ${want}`,
            );
            assert.ok(
              r.body.ros30d > 0.001 && r.body.ros30d < 1,
              `a plausible yearly return: ${r.body.ros30d}`,
            );
          }
          for (const pool of without) {
            const r = await f.get(`/v2/explorer/mainnet/pool/${pool.view}`);
            assert.equal(r.status, 200);
            assert.equal("ros30d" in r.body, false, `${pool.view}: ${JSON.stringify(r.body.ros30d)}`);
          }
        },
      );

      await t.step("saturation within 0.0 to 1.0, saturationRatio the same below 1; logo null", async () => {
        const pools = await f.query<{ view: string }>(
          "mainnet",
          "select view from pool_hash order by id limit 8",
        );
        for (const { view } of pools) {
          const { body } = await f.get(`/v2/explorer/mainnet/pool/${view}`);
          assert.ok(body.saturation >= 0 && body.saturation <= 1, `${view}: ${body.saturation}`);
          assert.equal(body.saturation, Math.min(body.saturationRatio, 1));
          assert.equal(body.logo, null, "the demo metadata names no logo");
        }
      });

      await t.step(
        "a net refund: deposit 0 or more, the refund apart, the other sums as db-sync's",
        async () => {
          const [refund] = await f.query<{ hash: string; net: string; fee: string; out: string }>(
            "mainnet",
            `select encode(hash, 'hex') as hash, deposit::text as net, fee::text as fee, out_sum::text as out
           from tx where deposit < 0 order by id limit 1`,
          );
          assert.ok(refund, "the demo chain has a transaction whose refunds exceed its deposits");
          const { status, body } = await f.get(`/v2/explorer/mainnet/tx/${refund.hash}`);
          assert.equal(status, 200);
          assert.match(body.deposit, /^\d+$/);
          assert.match(body.depositRefund, /^\d+$/);
          assert.equal(BigInt(body.deposit) - BigInt(body.depositRefund), BigInt(refund.net));
          assert.ok(BigInt(body.depositRefund) > 0n);
          assert.deepEqual([body.fee, body.totalOutput], [refund.fee, refund.out]);
          // and a registration: the deposit paid, no refund
          const [paid] = await f.query<{ hash: string; net: string }>(
            "mainnet",
            `select encode(t.hash, 'hex') as hash, t.deposit::text as net from tx t
           where t.deposit > 0 and exists (select 1 from stake_registration r where r.tx_id = t.id)
           order by t.id limit 1`,
          );
          const registration = (await f.get(`/v2/explorer/mainnet/tx/${paid!.hash}`)).body;
          assert.deepEqual([registration.deposit, registration.depositRefund], [paid!.net, "0"]);
        },
      );

      await t.step("the OpenAPI document describes every field beyond the spec's, and the bounds", () => {
        const { PoolInfo, Transaction, ProtocolParameters } = openapi.components.schemas;
        assert.match(PoolInfo.properties.saturationRatio.description, /uncapped/);
        assert.equal(PoolInfo.properties.saturation.minimum, 0);
        assert.equal(PoolInfo.properties.saturation.maximum, 1);
        assert.match(PoolInfo.properties.ros30d.description, /member rewards.*epoch_stake.*73/s);
        assert.match(PoolInfo.properties.logo.description, /url_png_icon_64x64/);
        assert.match(Transaction.properties.depositRefund.description, /deregistrations/);
        assert.match(Transaction.properties.deposit.pattern, /^\^\\d\+\$$/);
        assert.ok(Transaction.required.includes("depositRefund"));
        assert.match(ProtocolParameters.properties.stakeKeyDeposit.description, /stakeCredentialDeposit/);
        assert.match(ProtocolParameters.properties.poolDeposit.description, /stakePoolDeposit/);
      });
    } finally {
      await f.close();
    }
  },
});
