/**
 * The devnet's epoch boundary does what the demo chain generator's does: the chain rolled back to just before its
 * last boundary (the first block of epoch 5) and the boundary written again from the database gives the
 * generator's rows: rewards earned in epoch 3 and the pool deposit refunds, the stake snapshot (epoch_stake of
 * epoch 6), the DRep distribution, ada_pots and the finished epoch's totals. And read at the tip, the pools of
 * epoch 4 give the rewards the generator wrote ahead for it.
 */
import assert from "node:assert/strict";
import { Effect } from "effect";
import { poolRewards, rewardPot } from "@src/domain/pool_rewards.ts";
import { maxSupply } from "@src/domain/network_constants.ts";
import { writeEpochBoundaries } from "@src/devnet/epoch/boundary.ts";
import { readPoolEpochs, readRegistered } from "@src/devnet/epoch/reward_update.ts";
import { RowWriter } from "@src/devnet/rows/row_writer.ts";
import { createTestChain, type TestChain } from "../support/demo_chain.ts";

/** Tables written per transaction, by the column naming it. */
const txColumns: ReadonlyArray<readonly [string, string]> = [
  ["tx_in", "tx_in_id"],
  ["collateral_tx_in", "tx_in_id"],
  ["reference_tx_in", "tx_in_id"],
  ["tx_out", "tx_id"],
  ["collateral_tx_out", "tx_id"],
  ["stake_registration", "tx_id"],
  ["stake_deregistration", "tx_id"],
  ["delegation", "tx_id"],
  ["delegation_vote", "tx_id"],
  ["drep_registration", "tx_id"],
  ["voting_procedure", "tx_id"],
  ["gov_action_proposal", "tx_id"],
  ["withdrawal", "tx_id"],
  ["pool_update", "registered_tx_id"],
  ["pool_retire", "announced_tx_id"],
  ["pool_metadata_ref", "registered_tx_id"],
];

/** What the boundary into `epoch` and everything after it wrote, as db-sync's rollback would remove it. */
const boundaryRows = (epoch: number): ReadonlyArray<string> => [
  `delete from reward where spendable_epoch >= ${epoch}`,
  `delete from reward_rest where spendable_epoch >= ${epoch}`,
  `delete from epoch_stake where epoch_no > ${epoch}`,
  `delete from epoch_stake_progress where epoch_no > ${epoch}`,
  `delete from drep_distr where epoch_no >= ${epoch}`,
  `delete from ada_pots where epoch_no >= ${epoch}`,
  `delete from epoch_param where epoch_no >= ${epoch}`,
  `delete from epoch_finalized where no >= ${epoch - 1}`,
];

const sorted = <A>(rows: ReadonlyArray<A>) => [...rows].map((r) => JSON.stringify(r)).sort();

Deno.test({
  name: "the devnet's epoch boundary writes what the generator's does",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const chain: TestChain = await createTestChain("devnet_epoch_boundary");
    const run = <A>(e: Effect.Effect<A, unknown>) => Effect.runPromise(e);
    const query = <A extends object>(text: string) => run(chain.sql.unsafe<A>(text));
    try {
      await t.step(
        "the pools of epoch 4, read at the tip, earn the rewards written ahead for it",
        async () => {
          const [pots] = await query<{ reserves: string; fees: string }>(`
          select (select reserves::text from ada_pots where epoch_no = 5) as reserves,
            (select sum(t.fee)::text from tx t join block b on b.id = t.block_id where b.epoch_no = 4) as fees`);
          const reserves = BigInt(pots!.reserves);
          const { pot } = rewardPot({
            reserves,
            fees: Number(pots!.fees),
            monetaryExpandRate: 0.003,
            treasuryGrowthRate: 0.2,
          });
          const registered = await run(readRegistered(chain.sql));
          const { rows } = poolRewards({
            // the generator's pending pot (generate.ts): 80 % of the pot, rounded down
            pot: Math.floor(pot * 0.8),
            supply: Number(maxSupply - reserves),
            pools: await run(readPoolEpochs(chain.sql, 4)),
            registered: (a) => registered.has(a),
          });
          const written = await query<{ account: number; type: string; amount: number; pool: number }>(`
          select addr_id::int as account, type::text as type, amount::float8 as amount, pool_id::int as pool
          from reward where earned_epoch = 4 and type in ('leader', 'member')`);
          assert.ok(written.length > 50, `${written.length} rows`);
          assert.deepEqual(sorted(rows), sorted(written));
        },
      );

      await t.step("rolled back before epoch 5, the boundary gives the generator's rows again", async () => {
        const [first] = await query<{ block: string; slot: string; tx: string }>(`
          select b.id::text as block, b.slot_no::text as slot,
            (select min(t.id)::text from tx t where t.block_id >= b.id) as tx
          from block b where b.epoch_no = 5 order by b.id limit 1`);
        const written = {
          rewards: await query(`
            select addr_id::text, type::text, amount::text, pool_id::text, earned_epoch::text from reward
            where spendable_epoch = 5`),
          stake: await query(`
            select addr_id::text, pool_id::text, amount::text from epoch_stake where epoch_no = 6`),
          dreps: await query(`
            select hash_id::text, amount::text, active_until from drep_distr where epoch_no = 5`),
          pots: await query(`
            select treasury::text, reserves::text, rewards::text, utxo::text, deposits_stake::text, fees::text,
              deposits_drep::text, deposits_proposal::text, slot_no::text, block_id::text
            from ada_pots where epoch_no = 5`),
          finalized: await query(`
            select out_sum::text, fees::text, tx_count, blk_count, start_time, end_time
            from epoch_finalized where no = 4`),
        };
        assert.ok(written.rewards.some((r) => (r as { type: string }).type === "refund"), "a refund at 5");
        assert.ok(written.dreps.length > 0);
        const tx = first!.tx;
        for (const [table, column] of txColumns) {
          await query(`delete from ${table} where ${column} >= ${tx}`);
        }
        await query(`update tx_out set consumed_by_tx_id = null where consumed_by_tx_id >= ${tx}`);
        await query(`delete from tx where id >= ${tx}`);
        await query(`delete from block where id >= ${first!.block}`);
        for (const statement of boundaryRows(5)) await query(statement);

        const started = performance.now();
        await run(chain.sql.withTransaction(
          writeEpochBoundaries(new RowWriter(chain.sql), {
            from: 4,
            to: 5,
            blockId: Number(first!.block),
            slot: Number(first!.slot),
          }),
        ));
        console.log(`one boundary on the demo chain: ${Math.round(performance.now() - started)} ms`);

        assert.deepEqual(
          sorted(
            await query(`
            select addr_id::text, type::text, amount::text, pool_id::text, earned_epoch::text from reward
            where spendable_epoch = 5`),
          ),
          sorted(written.rewards),
        );
        assert.deepEqual(
          sorted(
            await query(`
            select addr_id::text, pool_id::text, amount::text from epoch_stake where epoch_no = 6`),
          ),
          sorted(written.stake),
        );
        assert.deepEqual(
          sorted(
            await query(`
            select hash_id::text, amount::text, active_until from drep_distr where epoch_no = 5`),
          ),
          sorted(written.dreps),
        );
        assert.deepEqual(
          await query(`
            select treasury::text, reserves::text, rewards::text, utxo::text, deposits_stake::text, fees::text,
              deposits_drep::text, deposits_proposal::text, slot_no::text, block_id::text
            from ada_pots where epoch_no = 5`),
          written.pots,
        );
        assert.deepEqual(
          await query(`
            select out_sum::text, fees::text, tx_count, blk_count, start_time, end_time
            from epoch_finalized where no = 4`),
          written.finalized,
        );
      });
    } finally {
      await chain.close();
    }
  },
});
