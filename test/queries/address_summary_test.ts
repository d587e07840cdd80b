/**
 * Address summaries brought up to date: after a new block pays the address and spends its outputs (one holding
 * the address's only unit of an asset, so a token disappears), the updated summary equals a full recomputation,
 * in both spent-tracking modes; after a rollback of the watermark's block the update refuses (recompute).
 */
import assert from "node:assert/strict";
import { Effect } from "effect";
import type { SpentTracking } from "@src/dbsync/detect.ts";
import { decodeAddress } from "@src/domain/cardano_ids.ts";
import { type AddressSummary, addressSummary, addressSummarySince } from "@src/queries/address_summary.ts";
import { createTestChain, type TestChain } from "../support/demo_chain.ts";

const run = <A, E>(e: Effect.Effect<A, E>) => Effect.runPromise(e);

Deno.test({
  name: "address summaries: updated by new blocks, refused after a rollback",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    let chain: TestChain | undefined;
    try {
      chain = await createTestChain("address_summary");
      const sql = chain.sql;
      const query = <A extends object>(text: string, ...params: Array<unknown>) =>
        run(sql.unsafe<A>(text, params));

      // the busiest payment address that holds a token in a UTxO
      const [busy] = await query<{ address: string }>(
        `select o.address from tx_out o
         where o.payment_cred is not null
           and exists (select 1 from ma_tx_out m where m.tx_out_id = o.id)
           and not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)
         group by o.address order by count(*) desc limit 1`,
      );
      const decoded = decodeAddress(busy!.address, "mainnet");
      assert.ok(decoded.ok);
      const options = (spentTracking: SpentTracking) => ({
        paymentCredHex: decoded.value.paymentCred,
        spentTracking,
      });
      // the consumed mode reads consumed_by_tx_id: fill it as db-sync would, from tx_in
      await query(
        `update tx_out o set consumed_by_tx_id = i.tx_in_id from tx_in i
         where i.tx_out_id = o.tx_id and i.tx_out_index = o.index`,
      );
      const before = {
        enable: (await run(addressSummary(sql, busy!.address, options("enable"))))!,
        consumed: (await run(addressSummary(sql, busy!.address, options("consumed"))))!,
      };
      assert.ok(before.enable.utxos > 2 && Object.keys(before.enable.tokens).length > 0);
      assert.deepEqual(before.consumed, before.enable);

      // two unspent outputs of the address to spend: one holding a token, one plain
      const spend = await query<{ id: string; tx_id: string; index: number; ident: string | null }>(
        `(select o.id::text, o.tx_id::text, o.index, (select m.ident::text from ma_tx_out m where m.tx_out_id = o.id
                                                       order by m.id limit 1) as ident
          from tx_out o where o.address = $1 and o.consumed_by_tx_id is null
            and exists (select 1 from ma_tx_out m where m.tx_out_id = o.id) order by o.id limit 1)
         union all
         (select o.id::text, o.tx_id::text, o.index, null from tx_out o where o.address = $1
            and o.consumed_by_tx_id is null and not exists (select 1 from ma_tx_out m where m.tx_out_id = o.id)
          order by o.id limit 1)`,
        busy!.address,
      );
      assert.equal(spend.length, 2);

      await t.step("a new block: the update equals a recomputation, in both modes", async () => {
        const [ids] = await query<{ block: string; tx: string; out: string; slot: string; no: number }>(
          `select (select max(id) + 1 from block)::text as block, (select max(id) + 1 from tx)::text as tx,
                  (select max(id) + 1 from tx_out)::text as out,
                  (select max(slot_no) + 20 from block)::text as slot, (select max(block_no) + 1 from block) as no`,
        );
        await query(
          `insert into block (id, hash, epoch_no, slot_no, epoch_slot_no, block_no, previous_id, slot_leader_id,
                              size, time, tx_count, proto_major, proto_minor)
           select $1, decode(md5('summary-block') || md5('summary-block'), 'hex'), epoch_no, $2::bigint,
                  epoch_slot_no + 20, $3, id, slot_leader_id, 900, time + interval '20 seconds', 1, proto_major,
                  proto_minor
           from block order by id desc limit 1`,
          ids!.block,
          ids!.slot,
          ids!.no,
        );
        await query(
          `insert into tx (id, hash, block_id, block_index, out_sum, fee, deposit, size, valid_contract, script_size)
           values ($1, decode(md5('summary-tx') || md5('summary-tx'), 'hex'), $2, 0, 7000000, 200000, 0, 400, true,
                   0)`,
          ids!.tx,
          ids!.block,
        );
        // pays the address twice (one output with a new asset for it), spends the two outputs picked above
        await query(
          `insert into tx_out (id, tx_id, index, address, address_has_script, payment_cred, stake_address_id, value)
           select $1::bigint + k, $2, k, o.address, o.address_has_script, o.payment_cred, o.stake_address_id,
                  3000000 + k
           from tx_out o, generate_series(0, 1) k where o.address = $3 order by o.id limit 2`,
          ids!.out,
          ids!.tx,
          busy!.address,
        );
        await query(
          `insert into ma_tx_out (id, quantity, tx_out_id, ident)
           select (select max(id) + 1 from ma_tx_out), 5, $1, m.id from multi_asset m order by m.id desc limit 1`,
          ids!.out,
        );
        for (const s of spend) {
          await query(
            `insert into tx_in (id, tx_in_id, tx_out_id, tx_out_index)
             values ((select max(id) + 1 from tx_in), $1, $2, $3)`,
            ids!.tx,
            s.tx_id,
            s.index,
          );
          await query(`update tx_out set consumed_by_tx_id = $1 where id = $2`, ids!.tx, s.id);
        }
        for (const mode of ["enable", "consumed"] as const) {
          const updated = await run(addressSummarySince(sql, before[mode], options(mode)));
          const recomputed = await run(addressSummary(sql, busy!.address, options(mode)));
          assert.ok(updated, mode);
          assert.deepEqual(updated, recomputed, mode);
          assert.equal(updated.utxos, before[mode].utxos + 2 - 2);
          assert.equal(updated.outputs, before[mode].outputs + 2);
          assert.equal(updated.watermark.blockId, ids!.block);
          assert.notEqual(updated.lastSeen, before[mode].lastSeen);
          const [spentValue] = await query<{ v: string }>(
            `select sum(value)::text as v from tx_out where id = any($1::bigint[])`,
            spend.map((s) => s.id),
          );
          assert.equal(
            BigInt(updated.balance),
            BigInt(before[mode].balance) + 3_000_000n + 3_000_001n - BigInt(spentValue!.v),
          );
        }
        const spentIdent = spend[0]!.ident!;
        const [held] = await query<{ n: number }>(
          `select count(*)::int as n from tx_out o join ma_tx_out m on m.tx_out_id = o.id
           where o.address = $1 and o.consumed_by_tx_id is null and m.ident = $2`,
          busy!.address,
          spentIdent,
        );
        const updated = (await run(addressSummarySince(sql, before.enable, options("enable"))))!;
        assert.equal(updated.tokens[spentIdent] ?? 0, held!.n, "the spent asset's count follows the spend");
      });

      await t.step("a rollback of the watermark's block: the update refuses", async () => {
        const current: AddressSummary = (await run(addressSummary(sql, busy!.address, options("enable"))))!;
        const newest = current.watermark.blockId;
        await query(
          `update tx_out set consumed_by_tx_id = null where consumed_by_tx_id in
                     (select id from tx where block_id = $1)`,
          newest,
        );
        await query(`delete from tx_in where tx_in_id in (select id from tx where block_id = $1)`, newest);
        await query(
          `delete from ma_tx_out where tx_out_id in
                     (select o.id from tx_out o join tx t on t.id = o.tx_id where t.block_id = $1)`,
          newest,
        );
        await query(`delete from tx_out where tx_id in (select id from tx where block_id = $1)`, newest);
        await query(`delete from tx where block_id = $1`, newest);
        await query(`delete from block where id = $1`, newest);
        assert.equal(await run(addressSummarySince(sql, current, options("enable"))), undefined);
        const recomputed = await run(addressSummary(sql, busy!.address, options("enable")));
        assert.deepEqual({ ...recomputed!, watermark: undefined }, {
          ...before.enable,
          watermark: undefined,
        });
      });
    } finally {
      await chain?.close();
    }
  },
});
