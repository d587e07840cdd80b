/**
 * The Blockfrost dialect's pools group on both networks: a pool by bech32 or hex id, the DReps and a DRep, each
 * against Blockfrost's published schema (found, not found, malformed, paged, empty), with values checked against
 * SQL on the same chain and against our explorer's `/pool/{id}` and `/dreps`.
 */
import assert from "node:assert/strict";
import { bech32, hex } from "@scure/base";
import type { Network } from "@schemas/network.ts";
import {
  assertBlockfrostShape,
  type BlockfrostFixture,
  startBlockfrostFixture,
} from "../support/blockfrost.ts";

const networks: ReadonlyArray<Network> = ["mainnet", "preprod"];

const assertRefused = async (
  f: BlockfrostFixture,
  path: string,
  template: string,
  network: Network,
  status: number,
  message?: RegExp,
) => {
  const r = await f.bf(path, network);
  assert.equal(r.status, status, `${path}: ${JSON.stringify(r.body)}`);
  assertBlockfrostShape("GET", template, r);
  if (message) assert.match(r.body.message, message);
};

type Item = { drep_id: string; hex: string; amount: string; has_script: boolean; retired: boolean };

const walkDReps = async (f: BlockfrostFixture, network: Network, count: number, order: "asc" | "desc") => {
  const all: Array<Item> = [];
  for (let page = 1;; page++) {
    const r = await f.bf(`/governance/dreps?count=${count}&page=${page}&order=${order}`, network);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assertBlockfrostShape("GET", "/governance/dreps", r);
    assert.ok(r.body.length <= count);
    if (r.body.length === 0) return all;
    all.push(...r.body);
    assert.ok(page < 1000, "pages end");
  }
};

Deno.test({
  name: "blockfrost: pools and DReps on both networks",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startBlockfrostFixture("bf_pools");
    try {
      await t.step(
        "a pool: Blockfrost's shape, the explorer's values, certificates and sizes from SQL",
        async () => {
          for (const network of networks) {
            const pools = await f.query<{ view: string; hex: string }>(
              network,
              `select p.view, encode(p.hash_raw, 'hex') as hex from pool_hash p
             where exists (select 1 from pool_update u where u.hash_id = p.id)
             order by (select count(*) from pool_retire r where r.hash_id = p.id) desc, p.id limit 3`,
            );
            for (const pool of pools) {
              const r = await f.bf(`/pools/${pool.view}`, network);
              assert.equal(r.status, 200, JSON.stringify(r.body));
              assertBlockfrostShape("GET", "/pools/{pool_id}", r);
              const byHex = await f.bf(`/pools/${pool.hex}`, network);
              assert.deepEqual(byHex.body, r.body, "the hex id names the same pool");
              const ours = (await f.get(`/v2/explorer/${network}/pool/${pool.view}`)).body;
              assert.equal(r.body.pool_id, ours.poolIdBech32);
              assert.equal(r.body.hex, ours.poolId);
              assert.equal(r.body.vrf_key, ours.vrfKeyHash);
              assert.equal(r.body.blocks_minted, ours.lifetimeBlocks);
              assert.equal(r.body.blocks_epoch, ours.epochBlocks);
              assert.equal(r.body.live_stake, ours.liveStake);
              assert.equal(r.body.active_stake, ours.activeStake);
              assert.equal(r.body.live_delegators, ours.delegatorCount);
              assert.equal(r.body.live_saturation, ours.saturationRatio);
              assert.equal(r.body.declared_pledge, ours.pledge);
              assert.equal(r.body.margin_cost, ours.margin);
              assert.equal(r.body.fixed_cost, ours.fixedCost);
              assert.equal(r.body.reward_account, ours.rewardAddress);
              assert.deepEqual(r.body.owners, ours.owners);
              assert.equal(r.body.calidus_key, null);
              const [sql] = await f.query<
                { registration: string[]; retirement: string[]; activeTotal: string }
              >(
                network,
                `with p as (select id from pool_hash where view = $1)
               select coalesce((select json_agg(encode(t.hash, 'hex') order by u.registered_tx_id, u.cert_index)
                                from pool_update u join tx t on t.id = u.registered_tx_id
                                where u.hash_id = (select id from p)), '[]') as registration,
                      coalesce((select json_agg(encode(t.hash, 'hex') order by r.announced_tx_id, r.cert_index)
                                from pool_retire r join tx t on t.id = r.announced_tx_id
                                where r.hash_id = (select id from p)), '[]') as retirement,
                      (select coalesce(sum(amount), 0)::text from epoch_stake
                       where epoch_no = (select max(epoch_no) from block)) as "activeTotal"`,
                pool.view,
              );
              assert.deepEqual(r.body.registration, sql!.registration);
              assert.deepEqual(r.body.retirement, sql!.retirement);
              const activeTotal = Number(sql!.activeTotal);
              assert.equal(
                r.body.active_size,
                activeTotal === 0 ? 0 : Number(ours.activeStake) / activeTotal,
              );
              assert.ok(r.body.live_size >= 0 && r.body.live_size <= 1);
              assert.match(r.body.live_pledge, /^\d+$/);
              assert.equal(BigInt(r.body.live_pledge) >= BigInt(r.body.declared_pledge), ours.pledgeMet);
            }
            assert.ok(
              (await f.bf(`/pools/${pools[0]!.view}`, network)).body.retirement.length > 0,
              "a retired pool lists its retirement",
            );
          }
        },
      );

      await t.step("pools: unknown is 404, malformed is 400", async () => {
        for (const network of networks) {
          const unknown = bech32.encode("pool", bech32.toWords(new Uint8Array(28).fill(3)));
          await assertRefused(f, `/pools/${unknown}`, "/pools/{pool_id}", network, 404);
          await assertRefused(f, `/pools/${"03".repeat(28)}`, "/pools/{pool_id}", network, 404);
          await assertRefused(f, "/pools/pool1abc", "/pools/{pool_id}", network, 400, /^Invalid pool_id: /);
          await assertRefused(f, `/pools/${"03".repeat(27)}`, "/pools/{pool_id}", network, 400);
          const stake = bech32.encode("stake", bech32.toWords(new Uint8Array(29).fill(0xe1, 0, 1)));
          await assertRefused(f, `/pools/${stake}`, "/pools/{pool_id}", network, 400, /has prefix stake/);
        }
      });

      await t.step("the DReps: every page, both orders, those SQL lists, the explorer's power", async () => {
        for (const network of networks) {
          const expected = await f.query<{ hex: string; hasScript: boolean; retired: boolean }>(
            network,
            `select encode(h.raw, 'hex') as hex, h.has_script as "hasScript",
                    (select r.deposit < 0 from drep_registration r where r.drep_hash_id = h.id
                     order by r.tx_id desc, r.cert_index desc limit 1) as retired
             from drep_hash h
             where h.raw is not null and exists (select 1 from drep_registration r where r.drep_hash_id = h.id)
             order by h.id`,
          );
          assert.ok(expected.length > 3, `${network} has DReps`);
          const asc = await walkDReps(f, network, 3, "asc");
          assert.deepEqual(
            asc.map((d) => ({ hex: d.hex, hasScript: d.has_script, retired: d.retired })),
            expected.map((e) => ({ ...e, retired: e.retired ?? false })),
          );
          const desc = await walkDReps(f, network, 100, "desc");
          assert.deepEqual(desc, [...asc].reverse());
          const explorer = (await f.get(`/v2/explorer/${network}/dreps?pageSize=100`)).body.data as Array<
            { drepIdBech32: string; votingPower?: string }
          >;
          for (const d of asc) {
            const ours = explorer.find((e) => e.drepIdBech32 === d.drep_id);
            assert.ok(ours, `${d.drep_id} is in the explorer's list`);
            assert.equal(d.amount, ours.votingPower ?? "0");
            const header = d.has_script ? 0x23 : 0x22;
            assert.equal(
              d.drep_id,
              bech32.encode("drep", bech32.toWords(Uint8Array.of(header, ...hex.decode(d.hex)))),
            );
          }
          const past = await f.bf("/governance/dreps?page=1000", network);
          assert.deepEqual(past.body, []);
          assertBlockfrostShape("GET", "/governance/dreps", past);
          await assertRefused(f, "/governance/dreps?count=0", "/governance/dreps", network, 400);
        }
      });

      await t.step("a DRep by CIP-129, CIP-105 or hex id; the list's values", async () => {
        for (const network of networks) {
          const [first] = await walkDReps(f, network, 1, "asc").then((
            all,
          ) => [all.find((d) => !d.has_script)]);
          assert.ok(first, "a key-hash DRep");
          const r = await f.bf(`/governance/dreps/${first.drep_id}`, network);
          assert.equal(r.status, 200, JSON.stringify(r.body));
          assertBlockfrostShape("GET", "/governance/dreps/{drep_id}", r);
          assert.equal(r.body.drep_id, first.drep_id);
          assert.equal(r.body.hex, first.hex);
          assert.equal(r.body.amount, first.amount);
          assert.equal(r.body.retired, first.retired);
          assert.equal(r.body.active, !first.retired);
          const cip105 = bech32.encode("drep", bech32.toWords(hex.decode(first.hex)));
          assert.deepEqual((await f.bf(`/governance/dreps/${cip105}`, network)).body, r.body);
          assert.deepEqual((await f.bf(`/governance/dreps/${first.hex}`, network)).body, r.body);
          assert.deepEqual((await f.bf(`/governance/dreps/22${first.hex}`, network)).body, r.body);
          const [epochs] = await f.query<{ last: number | null }>(
            network,
            `with h as (select id from drep_hash where raw = decode($1, 'hex'))
             select greatest(
               (select b.epoch_no from drep_registration r join tx t on t.id = r.tx_id join block b on b.id = t.block_id
                where r.drep_hash_id = (select id from h) order by r.tx_id desc limit 1),
               (select b.epoch_no from voting_procedure v join tx t on t.id = v.tx_id join block b on b.id = t.block_id
                where v.drep_voter = (select id from h) order by v.tx_id desc limit 1)) as last`,
            first.hex,
          );
          assert.equal(r.body.last_active_epoch, epochs!.last);
        }
      });

      await t.step("DReps: never registered is 404, malformed or predefined is 400", async () => {
        for (const network of networks) {
          const unknown = bech32.encode(
            "drep",
            bech32.toWords(Uint8Array.of(0x22, ...new Uint8Array(28).fill(5))),
          );
          // Blockfrost publishes no 404 for this path but answers one, in the envelope every path shares
          await assertRefused(f, `/governance/dreps/${unknown}`, "/pools/{pool_id}", network, 404);
          await assertRefused(
            f,
            `/governance/dreps/${"05".repeat(28)}`,
            "/pools/{pool_id}",
            network,
            404,
          );
          await assertRefused(
            f,
            "/governance/dreps/drep1abc",
            "/governance/dreps/{drep_id}",
            network,
            400,
            /^Invalid drep_id: /,
          );
          await assertRefused(
            f,
            "/governance/dreps/drep_always_abstain",
            "/governance/dreps/{drep_id}",
            network,
            400,
            /predefined/,
          );
        }
      });
    } finally {
      await f.close();
    }
  },
});
