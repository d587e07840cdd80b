/**
 * db-sync's `epoch` view through its stand-in (src/graphql/epoch_source.ts): the compiled common queries (latest
 * epochs, one epoch by number, aggregates) answer exactly what the view answers, from totals kept at any earlier
 * point (none, fresh, or older by a block, an epoch boundary, a finalized row gone, a rolled-back block) and
 * advanced from each (src/queries/epoch_progress.ts), on the demo chain as the chain changes under them; totals
 * that no longer hold (a finalized row gone, their block rolled back) fail the statement rather than answer, and
 * the executor then renews them and answers as the view does.
 */
import assert from "node:assert/strict";
import { Effect } from "effect";
import { getOperationAST, parse } from "graphql";
import { buildSchema } from "@src/graphql/build_schema.ts";
import { compileQuery } from "@src/graphql/compile.ts";
import { epochSource, isStaleEpochTotals } from "@src/graphql/epoch_source.ts";
import { executeGraphql } from "@src/graphql/execute.ts";
import type { SqlBuilder } from "@src/graphql/sql_text.ts";
import {
  advanceEpochProgress,
  epochIsFinalizedView,
  type EpochProgress,
  noEpochProgress,
} from "@src/queries/epoch_progress.ts";
import { readSchemaModel } from "@src/queries/schema_model.ts";
import { createTestChain } from "../support/demo_chain.ts";

const queries = [
  `{ epoch(order_by: {no: desc}, limit: 5) { id no blk_count tx_count fees out_sum start_time end_time } }`,
  `{ epoch(order_by: {no: asc}) { id no blk_count tx_count fees out_sum start_time end_time } }`,
  `query($e: bigint!) { epoch(where: {no: {_eq: $e}}) { no blk_count tx_count fees out_sum start_time end_time } }`,
  `{ epoch_aggregate { aggregate { count sum { fees out_sum tx_count blk_count } max { no end_time }
       min { start_time } avg { tx_count } } } }`,
  `{ epoch(where: {no: {_gte: 3}}, order_by: {tx_count: desc}, limit: 2) { no tx_count } }`,
];

Deno.test({
  name: "epoch view stand-in",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const chain = await createTestChain("epoch_view");
    const run = <A>(e: Effect.Effect<A, unknown>) => Effect.runPromise(e as Effect.Effect<A, never>);
    try {
      const model = await run(readSchemaModel(chain.sql));
      const schema = buildSchema(model);
      const stale = Symbol("stale");
      const answer = async (query: string, e: number, progress: EpochProgress | undefined) => {
        const operation = getOperationAST(parse(query))!;
        const sources = progress
          ? new Map([["epoch", (b: SqlBuilder) => epochSource(b, progress)]])
          : undefined;
        const compiled = compileQuery(schema, model, operation, {}, { e: String(e) }, { e }, sources);
        assert.ok(compiled.read.has("epoch"));
        const rows = await run(
          Effect.either(chain.sql.unsafe<{ data: string }>(compiled.sql!, [...compiled.params])),
        );
        if (rows._tag === "Left") {
          if (isStaleEpochTotals(rows.left)) return stale;
          throw rows.left;
        }
        return JSON.parse(rows.right[0]!.data);
      };
      /** Through the executor, whose kept totals (per SQL client) are advanced at most once a second. */
      const executed = async (query: string, e: number) => {
        const answer = await run(executeGraphql(
          { schema, model, sql: chain.sql, limitedSessions: true, timeoutMs: 30_000 },
          { query, variables: { e }, operationName: undefined },
          "PAID",
          "mainnet",
        ));
        return { data: JSON.parse(answer.body).data, statements: answer.statements };
      };
      const tipEpoch = async () =>
        (await run(chain.sql.unsafe<{ e: number }>("select max(epoch_no)::int as e from block")))[0]!.e;
      /**
       * Every query answered from each kept state as the view answers it, or refused as stale; the newest state
       * refused exactly when `newestStale`.
       */
      const sameAsView = async (states: ReadonlyArray<EpochProgress>, what: string, newestStale = false) => {
        const e = await tipEpoch();
        for (const query of queries) {
          for (const n of [e, e - 1]) {
            const expected = await answer(query, n, undefined);
            for (const [i, state] of states.entries()) {
              const got = await answer(query, n, state);
              if (i === states.length - 1) {
                assert.equal(got === stale, newestStale, `${what}, the newest state: ${query}`);
              }
              if (got !== stale) assert.deepEqual(got, expected, `${what}, state ${i}: ${query}`);
            }
          }
        }
      };
      const exec = (text: string) => run(chain.sql.unsafe(text));
      const states: Array<EpochProgress> = [noEpochProgress];
      const advance = async () => {
        const next = await run(advanceEpochProgress(chain.sql, states[states.length - 1]!));
        states.push(next);
        return next;
      };

      await t.step("the demo chain's epoch is db-sync 13.7.2's view", async () => {
        assert.equal(await run(epochIsFinalizedView(chain.sql)), true);
        const kept = await advance();
        assert.equal(kept.finalizedUpTo, String(await tipEpoch() - 1));
        assert.equal(JSON.parse(kept.rows).length, 1, "only the epoch in progress is kept");
        await sameAsView(states, "as seeded");
      });

      // a block after the tip (in the tip's epoch, or the next) with a copy of the last transaction
      let blocksAdded = 0;
      const addBlock = (epochShift: number) =>
        exec(`
          with b as (insert into block (id, hash, epoch_no, slot_no, epoch_slot_no, block_no, previous_id,
                       slot_leader_id, size, time, tx_count, proto_major, proto_minor)
                     select id + 1, sha256(hash || '\\x${
          (++blocksAdded).toString(16).padStart(2, "0")
        }'::bytea), epoch_no + ${epochShift}, slot_no + 1, epoch_slot_no,
                            block_no + 1, id, slot_leader_id, size, time + interval '20 seconds', 1, proto_major,
                            proto_minor
                     from block order by id desc limit 1 returning id)
          insert into tx (id, hash, block_id, block_index, out_sum, fee, size, valid_contract, script_size)
          select t.id + 1, sha256(t.hash), b.id, 0, t.out_sum + 7, t.fee + 3, t.size, true, 0
          from (select * from tx order by id desc limit 1) t, b`);

      await t.step("new blocks: the kept totals plus the blocks after them", async () => {
        await addBlock(0);
        await addBlock(0);
        await sameAsView(states, "two more blocks");
        await advance();
        await sameAsView(states, "advanced");
      });

      await t.step("an epoch boundary: the finished epoch finalized, blocks of the next", async () => {
        const e = await tipEpoch();
        await exec(`
          insert into epoch_finalized (id, out_sum, fees, tx_count, blk_count, no, start_time, end_time)
          select (select max(id) from epoch_finalized) + 1, out_sum, fees, tx_count, blk_count, no, start_time,
                 end_time
          from epoch_current where no = ${e}`);
        await addBlock(1);
        await sameAsView(states, "across the boundary");
        const kept = await advance();
        assert.equal(kept.finalizedUpTo, String(e));
        await sameAsView(states, "advanced past the boundary");
      });

      await t.step("a finalized row gone: that epoch summed live", async () => {
        await exec("delete from epoch_finalized where no = 2");
        await sameAsView(states, "a gap", true);
        await advance();
        await sameAsView(states, "advanced over a gap");
      });

      await t.step("a rollback of the kept block: the view itself", async () => {
        await exec(`delete from tx where block_id = (select max(id) from block)`);
        await exec(`delete from block where id = (select max(id) from block)`);
        await sameAsView(states, "rolled back", true);
        await addBlock(0);
        await sameAsView(states, "a new block where the old one was", true);
        await advance();
        await sameAsView(states, "advanced after the rollback");
      });

      await t.step("the executor renews totals that no longer hold and answers as the view", async () => {
        const query = queries[0]!;
        const e = await tipEpoch();
        // a request once the kept totals are a second old advances them; the tip block under them then goes, so
        // the next requests (within the second: no advance of their own) find them stale
        const advancedThenRolledBack = async () => {
          await new Promise((r) => setTimeout(r, 1_100));
          await executed(query, e);
          await exec(`delete from tx where block_id = (select max(id) from block)`);
          await exec(`delete from block where id = (select max(id) from block)`);
          await addBlock(0);
        };
        await executed(query, e);
        assert.deepEqual(await executed(query, e), {
          data: await answer(query, e, undefined),
          statements: 1,
        });
        await advancedThenRolledBack();
        // the statement fails on the kept totals, they are renewed, it runs again
        const renewed = await executed(query, e);
        assert.deepEqual(renewed, { data: await answer(query, e, undefined), statements: 2 });
        assert.deepEqual(await executed(query, e), { ...renewed, statements: 1 });
        // many requests finding the same totals stale at once: one renewal, each runs again on it
        await advancedThenRolledBack();
        const together = await Promise.all(Array.from({ length: 8 }, () => executed(query, e)));
        const expected = { data: await answer(query, e, undefined), statements: 2 };
        for (const got of together) assert.deepEqual(got, expected);
        await advance();
      });

      await t.step("epochs disabled: no rows", async () => {
        await exec("update epoch_sync_enabled set enabled = false");
        const empty = await answer(queries[0]!, 0, states[states.length - 1]);
        assert.deepEqual(empty, { epoch: [] });
        await sameAsView(states, "disabled");
      });
    } finally {
      await chain.close();
    }
  },
});
