/**
 * The Blockfrost dialect's accounts group on both networks: stake accounts and their addresses, assets, their
 * holders and a policy's assets, each against Blockfrost's published schema (found, not found, malformed, paged,
 * empty), with values checked against SQL on the same chain and against our own `/api/public/stake-account`.
 */
import assert from "node:assert/strict";
import { bech32 } from "@scure/base";
import type { Network } from "@schemas/network.ts";
import {
  assertBlockfrostShape,
  type BlockfrostFixture,
  startBlockfrostFixture,
} from "../support/blockfrost.ts";

const networks: ReadonlyArray<Network> = ["mainnet", "preprod"];
const stakePrefix = (n: Network) => (n === "mainnet" ? "stake" : "stake_test");
/** A well-formed reward address the chain has never seen. */
const unseenStake = (n: Network) =>
  bech32.encode(
    stakePrefix(n),
    bech32.toWords(new Uint8Array(29).fill(7).fill(n === "mainnet" ? 0xe1 : 0xe0, 0, 1)),
  );

/** Every page of a paged path (`count` per page) until the empty one, checking each against the schema. */
const walk = async (
  f: BlockfrostFixture,
  path: string,
  template: string,
  network: Network,
  count: number,
  order: "asc" | "desc" = "asc",
) => {
  const all: Array<unknown> = [];
  for (let page = 1;; page++) {
    const r = await f.bf(`${path}?count=${count}&page=${page}&order=${order}`, network);
    assert.equal(r.status, 200, `${path} page ${page}: ${JSON.stringify(r.body)}`);
    assertBlockfrostShape("GET", template, r);
    assert.ok(r.body.length <= count);
    if (r.body.length === 0) return all;
    all.push(...r.body);
    assert.ok(page < 1000, "pages end");
  }
};

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

Deno.test({
  name: "blockfrost: accounts and assets on both networks",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startBlockfrostFixture("bf_accounts");
    try {
      await t.step("an account: Blockfrost's shape, our stake-account's values, sums from SQL", async () => {
        for (const network of networks) {
          const accounts = await f.query<{ view: string }>(
            network,
            `select s.view from stake_address s
             where exists (select 1 from delegation d where d.addr_id = s.id)
                or exists (select 1 from stake_registration r where r.addr_id = s.id)
             order by (select count(*) from reward w where w.addr_id = s.id) desc, s.id limit 4`,
          );
          assert.ok(accounts.length > 0);
          for (const { view } of accounts) {
            const r = await f.bf(`/accounts/${view}`, network);
            assert.equal(r.status, 200, JSON.stringify(r.body));
            assertBlockfrostShape("GET", "/accounts/{stake_address}", r);
            const ours = (await f.get(`/api/public/stake-account?address=${view}`)).body;
            assert.equal(r.body.stake_address, view);
            assert.equal(r.body.registered, ours.registered);
            assert.equal(r.body.pool_id, ours.delegatedPoolId);
            assert.equal(r.body.active, ours.delegatedPoolId !== null);
            assert.equal(r.body.withdrawable_amount, ours.rewardsBalance);
            assert.equal(r.body.controlled_amount, ours.totalStake);
            const [sums] = await f.query<{ rewards: string; withdrawals: string; epoch: number | null }>(
              network,
              `with a as (select id from stake_address where view = $1),
                    tip as (select max(epoch_no) as e from block)
               select ((select coalesce(sum(amount), 0) from reward where addr_id = (select id from a)
                          and type <> 'refund' and spendable_epoch <= (select e from tip))
                       + (select coalesce(sum(amount), 0) from reward_rest where addr_id = (select id from a)
                          and spendable_epoch <= (select e from tip)))::text as rewards,
                      (select coalesce(sum(amount), 0) from withdrawal where addr_id = (select id from a))::text
                        as withdrawals,
                      (select b.epoch_no from block b join tx on tx.block_id = b.id
                       where tx.id = (select max(x.tx_id) from (
                         select tx_id from stake_registration where addr_id = (select id from a)
                         union all select tx_id from stake_deregistration where addr_id = (select id from a)) x))
                        as epoch`,
              view,
            );
            assert.equal(r.body.rewards_sum, sums!.rewards);
            assert.equal(r.body.withdrawals_sum, sums!.withdrawals);
            assert.equal(r.body.active_epoch, sums!.epoch);
            assert.equal(r.body.reserves_sum, "0");
            assert.equal(r.body.treasury_sum, "0");
          }
        }
      });

      await t.step("an account's DRep is the CIP-129 id the explorer lists", async () => {
        for (const network of networks) {
          const [delegator] = await f.query<{ view: string; raw: string | null; special: string }>(
            network,
            `select s.view, encode(h.raw, 'hex') as raw, h.view as special
             from delegation_vote dv join stake_address s on s.id = dv.addr_id join drep_hash h on h.id = dv.drep_hash_id
             where not exists (select 1 from delegation_vote l where l.addr_id = dv.addr_id and l.tx_id > dv.tx_id)
               and not exists (select 1 from stake_deregistration d where d.addr_id = dv.addr_id and d.tx_id > dv.tx_id)
               and not exists (select 1 from drep_registration g where g.drep_hash_id = h.id and g.deposit < 0
                               and g.tx_id > dv.tx_id)
             order by dv.id limit 1`,
          );
          if (!delegator) continue;
          const r = await f.bf(`/accounts/${delegator.view}`, network);
          assert.equal(r.status, 200);
          assert.ok(r.body.drep_id, `${delegator.view} delegates its vote`);
          const listed = (await f.get(`/v2/explorer/${network}/dreps?pageSize=100`)).body.data
            .map((d: { drepIdBech32: string }) => d.drepIdBech32);
          assert.ok(listed.includes(r.body.drep_id), `${r.body.drep_id} is a listed DRep`);
        }
      });

      await t.step("accounts: never seen is 404, malformed or another network's is 400", async () => {
        for (const network of networks) {
          const other = network === "mainnet" ? "preprod" : "mainnet";
          await assertRefused(
            f,
            `/accounts/${unseenStake(network)}`,
            "/accounts/{stake_address}",
            network,
            404,
          );
          await assertRefused(
            f,
            `/accounts/${unseenStake(network)}/addresses`,
            "/accounts/{stake_address}/addresses",
            network,
            404,
          );
          await assertRefused(
            f,
            `/accounts/${stakePrefix(network)}1abc`,
            "/accounts/{stake_address}",
            network,
            400,
            /^Invalid stake_address: /,
          );
          await assertRefused(
            f,
            `/accounts/${unseenStake(other)}`,
            "/accounts/{stake_address}",
            network,
            400,
          );
        }
      });

      await t.step("an account's addresses: every page, both orders, the same set as SQL", async () => {
        for (const network of networks) {
          const [busy] = await f.query<{ view: string; n: number }>(
            network,
            `select s.view, count(distinct o.address)::int as n from tx_out o join stake_address s
               on s.id = o.stake_address_id
             group by s.view order by count(distinct o.address) desc, s.view limit 1`,
          );
          const path = `/accounts/${busy!.view}/addresses`;
          const template = "/accounts/{stake_address}/addresses";
          const asc = (await walk(f, path, template, network, 1)) as Array<{ address: string }>;
          const expected = await f.query<{ address: string }>(
            network,
            `select o.address from tx_out o join stake_address s on s.id = o.stake_address_id where s.view = $1
             group by o.address order by min(o.id)`,
            busy!.view,
          );
          assert.deepEqual(asc.map((a) => a.address), expected.map((e) => e.address));
          assert.equal(asc.length, busy!.n);
          const desc = (await walk(f, path, template, network, 2, "desc")) as Array<{ address: string }>;
          assert.deepEqual(desc.map((a) => a.address), expected.map((e) => e.address).reverse());
          const past = await f.bf(`${path}?page=1000`, network);
          assert.deepEqual(past.body, []);
          assertBlockfrostShape("GET", template, past);
          await assertRefused(f, `${path}?count=101`, template, network, 400, /count must be at most 100/);
          await assertRefused(f, `${path}?order=newest`, template, network, 400, /^Invalid order/);
          await assertRefused(f, `${path}?page=0`, template, network, 400);
        }
      });

      await t.step(
        "an asset: supply, first mint, mint count and CIP-25 metadata as SQL reads them",
        async () => {
          for (const network of networks) {
            const [minted] = await f.query<
              {
                policy: string;
                name: string;
                fingerprint: string;
                supply: string;
                mints: number;
                first: string;
              }
            >(
              network,
              `select encode(m.policy, 'hex') as policy, encode(m.name, 'hex') as name, m.fingerprint,
                    (select sum(quantity)::text from ma_tx_mint where ident = m.id) as supply,
                    (select count(*)::int from ma_tx_mint where ident = m.id) as mints,
                    (select encode(t.hash, 'hex') from ma_tx_mint x join tx t on t.id = x.tx_id where x.ident = m.id
                     order by x.tx_id limit 1) as first
             from multi_asset m
             where exists (select 1 from ma_tx_mint x join tx_metadata tm on tm.tx_id = x.tx_id and tm.key = 721
                           where x.ident = m.id and x.quantity > 0)
             order by m.id limit 1`,
            );
            assert.ok(minted, `${network} has an asset minted with CIP-25 metadata`);
            const unit = minted.policy + minted.name;
            const r = await f.bf(`/assets/${unit}`, network);
            assert.equal(r.status, 200, JSON.stringify(r.body));
            assertBlockfrostShape("GET", "/assets/{asset}", r);
            assert.equal(r.body.asset, unit);
            assert.equal(r.body.policy_id, minted.policy);
            assert.equal(r.body.asset_name, minted.name);
            assert.equal(r.body.fingerprint, minted.fingerprint);
            assert.match(r.body.fingerprint, /^asset1/);
            assert.equal(r.body.quantity, minted.supply);
            assert.equal(r.body.mint_or_burn_count, minted.mints);
            assert.equal(r.body.initial_mint_tx_hash, minted.first);
            const [meta] = await f.query<{ json: Record<string, Record<string, unknown>> }>(
              network,
              `select tm.json from ma_tx_mint x join multi_asset m on m.id = x.ident
             join tx_metadata tm on tm.tx_id = x.tx_id and tm.key = 721
             where m.policy = decode($1, 'hex') and m.name = decode($2, 'hex') and x.quantity > 0
             order by x.tx_id desc limit 1`,
              minted.policy,
              minted.name,
            );
            const text = new TextDecoder().decode(
              Uint8Array.from(minted.name.match(/../g)!, (h) => parseInt(h, 16)),
            );
            const entry = meta!.json[minted.policy]?.[text] ?? meta!.json[minted.policy]?.[minted.name];
            assert.deepEqual(r.body.onchain_metadata, entry ?? null);
            if (entry) assert.match(String(r.body.onchain_metadata_standard), /^CIP25v[12]$|^null$/);
            assert.equal(r.body.metadata, null);
            const upper = await f.bf(`/assets/${unit.toUpperCase()}`, network);
            assert.equal(upper.body.asset, unit, "units are read case-insensitively");
          }
        },
      );

      await t.step("assets: never minted is 404, malformed is 400", async () => {
        for (const network of networks) {
          const unknown = "ab".repeat(28) + "cafe";
          await assertRefused(f, `/assets/${unknown}`, "/assets/{asset}", network, 404);
          await assertRefused(f, `/assets/${unknown}/addresses`, "/assets/{asset}/addresses", network, 404);
          await assertRefused(
            f,
            `/assets/policy/${"ab".repeat(28)}`,
            "/assets/policy/{policy_id}",
            network,
            404,
          );
          await assertRefused(f, "/assets/xyz", "/assets/{asset}", network, 400, /^Invalid asset: /);
          await assertRefused(f, `/assets/${"ab".repeat(27)}`, "/assets/{asset}", network, 400);
          await assertRefused(f, "/assets/zz/addresses", "/assets/{asset}/addresses", network, 400);
          await assertRefused(
            f,
            `/assets/policy/${"ab".repeat(29)}`,
            "/assets/policy/{policy_id}",
            network,
            400,
            /^Invalid policy_id: /,
          );
        }
      });

      await t.step(
        "an asset's holders: every page, both orders, unspent holdings as SQL sums them",
        async () => {
          for (const network of networks) {
            const [held] = await f.query<{ policy: string; name: string }>(
              network,
              `select encode(m.policy, 'hex') as policy, encode(m.name, 'hex') as name
             from ma_tx_out mo join tx_out o on o.id = mo.tx_out_id join multi_asset m on m.id = mo.ident
             where not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)
             group by m.id order by count(distinct o.address) desc, m.id limit 1`,
            );
            const path = `/assets/${held!.policy}${held!.name}/addresses`;
            const template = "/assets/{asset}/addresses";
            const expected = await f.query<{ address: string; quantity: string }>(
              network,
              `select o.address, sum(mo.quantity)::text as quantity
             from ma_tx_out mo join tx_out o on o.id = mo.tx_out_id join multi_asset m on m.id = mo.ident
             where m.policy = decode($1, 'hex') and m.name = decode($2, 'hex')
               and not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)
             group by o.address order by min(o.id)`,
              held!.policy,
              held!.name,
            );
            assert.ok(expected.length > 1, "an asset held at several addresses");
            assert.deepEqual(await walk(f, path, template, network, 1), expected);
            assert.deepEqual(await walk(f, path, template, network, 3, "desc"), [...expected].reverse());
            const two = await f.bf(`${path}?count=2`, network);
            assert.equal(two.body.length, 2, "Lucid's getUtxoByUnit asks for two");
          }
        },
      );

      await t.step("a policy's assets: every page, both orders, supply as SQL sums it", async () => {
        for (const network of networks) {
          const [policy] = await f.query<{ policy: string }>(
            network,
            `select encode(policy, 'hex') as policy from multi_asset group by policy order by count(*) desc, policy
             limit 1`,
          );
          const expected = await f.query<{ asset: string; quantity: string }>(
            network,
            `select encode(m.policy, 'hex') || encode(m.name, 'hex') as asset, sum(x.quantity)::text as quantity
             from multi_asset m join ma_tx_mint x on x.ident = m.id where m.policy = decode($1, 'hex')
             group by m.id having sum(x.quantity) > 0 order by m.id`,
            policy!.policy,
          );
          assert.ok(expected.length > 1, "a policy with several assets");
          const path = `/assets/policy/${policy!.policy}`;
          const template = "/assets/policy/{policy_id}";
          assert.deepEqual(await walk(f, path, template, network, 1), expected);
          assert.deepEqual(await walk(f, path, template, network, 2, "desc"), [...expected].reverse());
        }
      });
    } finally {
      await f.close();
    }
  },
});
