/**
 * The demo chain is a chain db-sync could have written: value and tokens are conserved in every transaction,
 * nothing is spent twice, blocks, slots, epochs and times agree, the ada pots add up, and every address type
 * the spec names is present, checked with SQL and an address decoder independent of the generator.
 */
import assert from "node:assert/strict";
import { base58, bech32 } from "@scure/base";
import { Effect } from "effect";
import { createTestChain, type TestChain } from "../support/demo_chain.ts";

let chain: TestChain;
const query = <A extends object>(text: string): Promise<ReadonlyArray<A>> =>
  Effect.runPromise(chain.sql.unsafe<A>(text));

Deno.test({
  name: "demo chain",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    chain = await createTestChain("invariants");
    try {
      await t.step("has the size the issue asks for", async () => {
        const [c] = await query<Record<string, string>>(`select
          (select count(distinct epoch_no) from block where epoch_no is not null) as epochs,
          (select count(*) from block where block_no is not null) as blocks,
          (select count(*) from tx) as txs,
          (select count(*) from pool_hash) as pools,
          (select count(*) from stake_address) as stake_addresses,
          (select count(*) from drep_hash where raw is not null) as dreps,
          (select max(n) from (select count(*) as n from tx_out o
             where not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)
             group by o.address) u) as max_utxos_one_address`);
        assert.ok(Number(c!.epochs) >= 5, `epochs ${c!.epochs}`);
        assert.ok(Number(c!.blocks) >= 2_000, `blocks ${c!.blocks}`);
        assert.ok(Number(c!.txs) >= 10_000, `txs ${c!.txs}`);
        assert.ok(Number(c!.pools) >= 50, `pools ${c!.pools}`);
        assert.ok(Number(c!.stake_addresses) >= 1_000, `stake addresses ${c!.stake_addresses}`);
        assert.ok(Number(c!.dreps) >= 30, `dreps ${c!.dreps}`);
        assert.ok(Number(c!.max_utxos_one_address) >= 1_000, `utxos ${c!.max_utxos_one_address}`);
      });

      await t.step("conserves value in every transaction", async () => {
        const broken = await query<{ id: string }>(`
          with ins as (select i.tx_in_id as tx_id, sum(o.value) as v from tx_in i
                       join tx_out o on o.tx_id = i.tx_out_id and o.index = i.tx_out_index group by i.tx_in_id),
               outs as (select tx_id, sum(value) as v from tx_out group by tx_id),
               wd as (select tx_id, sum(amount) as v from withdrawal group by tx_id)
          select t.id::text as id from tx t join block b on b.id = t.block_id
          left join ins on ins.tx_id = t.id left join outs on outs.tx_id = t.id left join wd on wd.tx_id = t.id
          where b.block_no is not null
            and (coalesce(ins.v, 0) + coalesce(wd.v, 0) <> coalesce(outs.v, 0) + t.fee + coalesce(t.deposit, 0)
                 or coalesce(outs.v, 0) <> t.out_sum)`);
        assert.deepEqual(broken, []);
      });

      await t.step("conserves every token, minting and burning included", async () => {
        const broken = await query<{ tx: string }>(`
          with ins as (select i.tx_in_id as tx_id, m.ident, sum(m.quantity) as q from tx_in i
                       join tx_out o on o.tx_id = i.tx_out_id and o.index = i.tx_out_index
                       join ma_tx_out m on m.tx_out_id = o.id group by 1, 2),
               outs as (select o.tx_id, m.ident, sum(m.quantity) as q from tx_out o
                        join ma_tx_out m on m.tx_out_id = o.id group by 1, 2),
               mint as (select tx_id, ident, sum(quantity) as q from ma_tx_mint group by 1, 2),
               keys as (select tx_id, ident from ins union select tx_id, ident from outs union select tx_id, ident from mint)
          select k.tx_id::text as tx from keys k
          left join ins using (tx_id, ident) left join outs using (tx_id, ident) left join mint using (tx_id, ident)
          where coalesce(ins.q, 0) + coalesce(mint.q, 0) <> coalesce(outs.q, 0)`);
        assert.deepEqual(broken, []);
        const [m] = await query<{ burns: string; mints: string }>(
          `select count(*) filter (where quantity < 0) as burns, count(*) filter (where quantity > 0) as mints from ma_tx_mint`,
        );
        assert.ok(Number(m!.burns) > 0 && Number(m!.mints) > 0);
      });

      await t.step("spends nothing twice and only outputs that existed before", async () => {
        const twice = await query(
          `select tx_out_id, tx_out_index from tx_in group by 1, 2 having count(*) > 1`,
        );
        assert.deepEqual(twice, []);
        const dangling = await query(`select i.id from tx_in i left join tx_out o
          on o.tx_id = i.tx_out_id and o.index = i.tx_out_index where o.id is null or i.tx_out_id >= i.tx_in_id`);
        assert.deepEqual(dangling, []);
        const badCollateral = await query(`select c.id from collateral_tx_in c
          join tx t on t.id = c.tx_in_id
          left join tx_out o on o.tx_id = c.tx_out_id and o.index = c.tx_out_index
          where o.id is null or exists (select 1 from tx_in i where i.tx_out_id = c.tx_out_id
            and i.tx_out_index = c.tx_out_index and i.tx_in_id < c.tx_in_id)`);
        assert.deepEqual(badCollateral, []);
        const badReference = await query(`select r.id from reference_tx_in r
          left join tx_out o on o.tx_id = r.tx_out_id and o.index = r.tx_out_index
          where o.id is null or exists (select 1 from tx_in i where i.tx_out_id = r.tx_out_id
            and i.tx_out_index = r.tx_out_index and i.tx_in_id < r.tx_in_id)`);
        assert.deepEqual(badReference, []);
      });

      await t.step("keeps blocks, slots, epochs, times and the tip consistent", async () => {
        const broken = await query(`
          with b as (select id, block_no, slot_no, epoch_no, epoch_slot_no, previous_id, time, tx_count,
                            lag(id) over (order by id) as prev_id, lag(slot_no) over (order by id) as prev_slot,
                            row_number() over (order by id) - 1 as expected_no
                     from block where block_no is not null),
               m as (select start_time from meta)
          select b.id from b, m where b.block_no <> b.expected_no
            or (b.prev_id is not null and b.previous_id <> b.prev_id)
            or b.slot_no <= coalesce(b.prev_slot, -1)
            or b.epoch_no <> b.slot_no / 432000 or b.epoch_slot_no <> b.slot_no % 432000
            or b.time <> m.start_time + make_interval(secs => b.slot_no)
            or b.tx_count <> (select count(*) from tx where tx.block_id = b.id)`);
        assert.deepEqual(broken, []);
        const genesis = await query<{ n: string }>(
          `select count(*) as n from block where block_no is null and previous_id is null and epoch_no is null`,
        );
        assert.equal(genesis[0]!.n, "1");
        const [tip] = await query<{ block_no: number; epoch_no: number }>(
          `select block_no, epoch_no from block where block_no is not null order by id desc limit 1`,
        );
        assert.equal(tip!.block_no, chain.seeded.tipBlockNo);
        assert.equal(tip!.epoch_no, chain.seeded.tipEpoch);
        const epochs = await query<{ no: string }>(`select no::text from epoch order by no`);
        assert.deepEqual(
          epochs.map((e) => Number(e.no)),
          Array.from({ length: tip!.epoch_no + 1 }, (_, i) => i),
        );
        const params = await query<{ n: string }>(`select count(distinct epoch_no) as n from epoch_param`);
        assert.equal(Number(params[0]!.n), tip!.epoch_no + 1);
      });

      await t.step(
        "keeps the ada pots whole, with utxo matching the outputs unspent at each boundary",
        async () => {
          const pots = await query<{ epoch_no: number; total: string; utxo: string; live: string }>(`
          select p.epoch_no, (p.treasury + p.reserves + p.rewards + p.utxo + p.deposits_stake + p.fees
                 + p.deposits_drep + p.deposits_proposal)::text as total, p.utxo::text as utxo,
                 (select coalesce(sum(o.value), 0) from tx_out o join tx t on t.id = o.tx_id
                  where t.block_id < p.block_id and not exists (select 1 from tx_in i join tx s on s.id = i.tx_in_id
                    where i.tx_out_id = o.tx_id and i.tx_out_index = o.index and s.block_id < p.block_id))::text as live
          from ada_pots p order by p.epoch_no`);
          assert.ok(pots.length >= 4);
          for (const p of pots) {
            assert.equal(p.total, "45000000000000000", `epoch ${p.epoch_no}`);
            assert.equal(p.utxo, p.live, `utxo pot at epoch ${p.epoch_no}`);
          }
        },
      );

      await t.step("never withdraws more rewards than were spendable", async () => {
        const over = await query(`
          with w as (select w.addr_id, sum(w.amount) as v, max(b.epoch_no) as epoch from withdrawal w
                     join tx t on t.id = w.tx_id join block b on b.id = t.block_id group by w.addr_id),
               r as (select addr_id, spendable_epoch, amount from reward
                     union all select addr_id, spendable_epoch, amount from reward_rest)
          select w.addr_id from w where w.v > (select coalesce(sum(amount), 0) from r
            where r.addr_id = w.addr_id and r.spendable_epoch <= w.epoch)`);
        assert.deepEqual(over, []);
        const future = await query<{ n: string }>(
          `select count(*) as n from reward where spendable_epoch > (select max(epoch_no) from block)`,
        );
        assert.ok(Number(future[0]!.n) > 0, "rewards spendable after the tip exist, as in db-sync");
      });

      await t.step("holds every address type, encoded for its network", async () => {
        const addresses = await query<{ address: string; has_script: boolean; payment_cred: unknown }>(
          `select distinct on (address) address, address_has_script as has_script, payment_cred from tx_out`,
        );
        const types = new Set<string>();
        for (const { address, has_script } of addresses) {
          if (address.startsWith("addr")) {
            const decoded = bech32.decode(address as `${string}1${string}`, 1023);
            assert.equal(decoded.prefix, "addr");
            const header = bech32.fromWords(decoded.words)[0]!;
            assert.equal(header & 0x0f, 1, "mainnet network nibble");
            const kind = header >> 4;
            types.add(kind <= 3 ? "base" : kind <= 5 ? "pointer" : kind <= 7 ? "enterprise" : "other");
            assert.equal(has_script, kind % 2 === 1, `${address} script flag`);
            if (has_script) types.add("script");
          } else {
            const raw = base58.decode(address);
            assert.equal(raw[0], 0x82, "Byron addresses are CBOR arrays");
            types.add("byron");
          }
        }
        const [reward] = await query<{ view: string }>(`select view from stake_address limit 1`);
        if (reward?.view.startsWith("stake1")) types.add("reward");
        assert.deepEqual([...types].sort(), ["base", "byron", "enterprise", "pointer", "reward", "script"]);
      });

      await t.step("has certificates of all nine kinds, governance, scripts and metadata", async () => {
        const [c] = await query<Record<string, string>>(`select
          (select count(*) from stake_registration) as stake_registration,
          (select count(*) from stake_deregistration) as stake_deregistration,
          (select count(*) from delegation) as delegation,
          (select count(*) from pool_update) as pool_registration,
          (select count(*) from pool_retire) as pool_retirement,
          (select count(*) from drep_registration where deposit > 0) as drep_registration,
          (select count(*) from drep_registration where deposit < 0) as drep_deregistration,
          (select count(*) from delegation_vote) as vote_delegation,
          (select count(*) from delegation d join delegation_vote v on v.tx_id = d.tx_id
             and v.cert_index = d.cert_index) as stake_vote_delegation,
          (select count(*) from voting_procedure) as votes,
          (select count(*) from off_chain_vote_drep_data) as drep_names,
          (select count(*) from off_chain_pool_data) as pool_metadata,
          (select count(*) from redeemer) as redeemers,
          (select count(*) from tx where not valid_contract) as failed_scripts,
          (select count(*) from tx_out where inline_datum_id is not null) as inline_datums,
          (select count(*) from tx_out where reference_script_id is not null) as reference_scripts,
          (select count(*) from tx_metadata) as metadata,
          (select count(*) from reward_rest) as reward_rest,
          (select count(*) from drep_distr) as drep_distr,
          (select count(*) from epoch_stake) as epoch_stake`);
        for (const [k, v] of Object.entries(c!)) assert.ok(Number(v) > 0, `${k} is empty`);
      });
    } finally {
      await chain.close();
    }
  },
});
