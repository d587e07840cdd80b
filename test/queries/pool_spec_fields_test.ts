/**
 * The PoolInfo fields the interface spec bounds or names, on a writable copy of the demo chain, each against an
 * independent SQL statement: saturation capped at 1.0 with the uncapped saturationRatio beside it (k raised so
 * that pools oversaturate), logo from the off-chain metadata's keys (rows rewritten to hold them), and ros30d.
 */
import assert from "node:assert/strict";
import { Effect } from "effect";
import { poolInfo, poolReturnOnStake30d } from "@src/queries/pool.ts";
import { createTestChain, type TestChain } from "../support/demo_chain.ts";

let chain: TestChain;
const query = <A extends object>(text: string): Promise<ReadonlyArray<A>> =>
  Effect.runPromise(chain.sql.unsafe<A>(text));
const run = <A>(effect: Effect.Effect<A, unknown>): Promise<A> => Effect.runPromise(effect);

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b));

Deno.test({
  name: "pool: saturation range, logo, ros30d",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    chain = await createTestChain("pool_spec_fields");
    try {
      const pools = await query<{ id: string; hex: string }>(
        `select p.id::text as id, encode(p.hash_raw, 'hex') as hex from pool_hash p
         where exists (select 1 from pool_update u where u.hash_id = p.id) order by p.id`,
      );
      assert.ok(pools.length >= 50);

      await t.step("ros30d: member rewards over active stake of the 6 final epochs, times 73", async () => {
        // independent: the window as a generated series, the figure in numeric SQL
        const expected = await query<{ hex: string; ros: string | null }>(`
          with tip as (select max(epoch_no) as e from block where block_no is not null),
               win as (select generate_series(tip.e - 7, tip.e - 2) as e from tip),
               m as (select r.pool_id, sum(r.amount) as amount from reward r join win on win.e = r.earned_epoch
                     where r.type = 'member' group by r.pool_id),
               s as (select es.pool_id, sum(es.amount) as amount from epoch_stake es
                     join win on win.e = es.epoch_no group by es.pool_id)
          select encode(p.hash_raw, 'hex') as hex,
                 (coalesce(m.amount, 0)::numeric / nullif(s.amount, 0) * 365 / 5)::text as ros
          from pool_hash p left join m on m.pool_id = p.id left join s on s.pool_id = p.id`);
        const byHex = new Map(expected.map((e) => [e.hex, e.ros === null ? undefined : Number(e.ros)]));
        let positive = 0, none = 0;
        for (const p of pools) {
          const actual = await run(poolReturnOnStake30d(chain.sql, p.hex));
          const want = byHex.get(p.hex);
          if (want === undefined) {
            assert.equal(actual, undefined, p.hex);
            none++;
          } else {
            assert.ok(actual !== undefined && close(actual, want), `${p.hex}: ${actual} vs ${want}`);
            if (want > 0) positive++;
          }
        }
        assert.ok(positive >= 3, `pools with a 30-day return: ${positive}`);
        assert.ok(none >= 1, `pools without history: ${none}`);
      });

      await t.step("logo: the off-chain metadata's logo or icon URL, else null", async () => {
        const before = await Promise.all(pools.slice(0, 6).map((p) => run(poolInfo(chain.sql, p.hex))));
        assert.ok(before.every((p) => p!.logo === null), "the demo metadata names no logo");
        const cases: Array<[unknown, string | null]> = [
          [{ logo: "https://a.invalid/logo.png" }, "https://a.invalid/logo.png"],
          [
            {
              pool: {
                media_assets: {
                  icon_png_64x64: "https://b.invalid/i.png",
                  logo_png: "https://b.invalid/l.png",
                },
              },
            },
            "https://b.invalid/l.png",
          ],
          [{ info: { url_png_icon_64x64: "http://c.invalid/icon.png" } }, "http://c.invalid/icon.png"],
          [{ logo: "javascript:alert(1)", info: { url_png_logo: 7 } }, null],
        ];
        for (const [i, [extra, logo]] of cases.entries()) {
          const pool = pools[i]!;
          await query(
            `update off_chain_pool_data set json = json || '${
              JSON.stringify(extra)
            }'::jsonb where pool_id = ${pool.id}`,
          );
          assert.equal((await run(poolInfo(chain.sql, pool.hex)))!.logo, logo, JSON.stringify(extra));
        }
      });

      await t.step("saturation: at most 1.0; saturationRatio uncapped, as SQL computes it", async () => {
        // k a thousand times higher: the saturation point falls a thousandfold and big pools oversaturate
        await query(`update epoch_param set optimal_pool_count = optimal_pool_count * 1000
                     where id = (select max(id) from epoch_param)`);
        const expected = await query<{ hex: string; ratio: string }>(`
          with tip as (select max(epoch_no) as e from block where block_no is not null),
               snap as (select case when exists (select 1 from epoch_stake_progress where epoch_no = tip.e + 1
                                                 and completed) then tip.e + 1 else tip.e end as e from tip),
               point as (select (45000000000000000 - (select reserves from ada_pots order by id desc limit 1))::numeric
                                / (select optimal_pool_count from epoch_param order by id desc limit 1) as lovelace)
          select encode(p.hash_raw, 'hex') as hex,
                 ((select coalesce(sum(amount), 0) from epoch_stake e, snap
                   where e.pool_id = p.id and e.epoch_no = snap.e) / point.lovelace)::text as ratio
          from pool_hash p, point`);
        const byHex = new Map(expected.map((e) => [e.hex, Number(e.ratio)]));
        let over = 0;
        for (const p of pools) {
          const found = (await run(poolInfo(chain.sql, p.hex)))!;
          const ratio = byHex.get(p.hex)!;
          assert.ok(close(found.saturationRatio, ratio), `${p.hex}: ${found.saturationRatio} vs ${ratio}`);
          assert.equal(found.saturation, Math.min(found.saturationRatio, 1));
          assert.ok(found.saturation >= 0 && found.saturation <= 1);
          if (ratio > 1) over++;
        }
        assert.ok(over >= 3, `oversaturated pools: ${over}`);
      });
    } finally {
      await chain.close();
    }
  },
});
