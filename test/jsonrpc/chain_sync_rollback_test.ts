/**
 * Chain-sync sessions (src/jsonrpc/chain_sync.ts) with ChainTips over a real demo-chain database on both backends
 * (the end-to-end rollback test in chain_sync_test.ts needs a database the test can write while the service
 * reads it, which only PostgreSQL allows): db-sync's rollback (deleting the newest blocks) and a new block reach a
 * session waiting at the tip, and a session behind the tip rolls back to the newest block it shares with the chain.
 */
import assert from "node:assert/strict";
import { Effect, Exit, Fiber, Layer, ManagedRuntime } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import { ChainTips, ChainTipsLive } from "@layers/chain_tips.ts";
import { detectDbSync } from "@src/dbsync/detect.ts";
import { JsonText } from "@src/domain/json.ts";
import { type ChainSyncServices, makeChainSync } from "@src/jsonrpc/chain_sync.ts";
import { createTestChain } from "../support/demo_chain.ts";

interface Row {
  id: string;
  hash: string;
  slot: string;
  height: number;
}

Deno.test({
  name: "chain sync sessions follow db-sync's rollbacks and new blocks",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const chain = await createTestChain("chainsync_rollback");
    const dbSync = await Effect.runPromise(detectDbSync(chain.sql));
    const database = {
      network: "mainnet" as const,
      sql: chain.sql,
      backend: chain.backend,
      location: "test",
      dbSync,
      demoChain: true,
    };
    const databases = Layer.succeed(ChainDatabases, { get: () => database, all: [database] });
    const runtime = ManagedRuntime.make(Layer.provideMerge(ChainTipsLive, databases));
    /** A result as a client reads it (a forward step comes as its JSON text). */
    const plain = (result: unknown) => (result instanceof JsonText ? JSON.parse(result.text) : result);
    const run = <A, E>(e: Effect.Effect<A, E, ChainSyncServices>) => runtime.runPromise(e).then(plain);
    const q = <A extends object>(text: string, ...params: Array<unknown>) =>
      Effect.runPromise(chain.sql.unsafe<A>(text, params));
    const newest = (n: number) =>
      q<Row>(
        `select b.id::text, encode(b.hash, 'hex') as hash, b.slot_no::text as slot, b.block_no as height
         from block b order by b.id desc limit ${n}`,
      );
    /** db-sync's rollback: the blocks above `keep` and their transactions' rows go. */
    const rollBack = (keep: Row) =>
      q(
        `with gone as (delete from tx where block_id > $1 returning id),
              outs as (delete from tx_out where tx_id in (select id from gone)),
              ins as (delete from tx_in where tx_in_id in (select id from gone))
         delete from block where id > $1`,
        keep.id,
      );
    const pointOf = (r: Row) => ({ slot: Number(r.slot), id: r.hash });
    try {
      await t.step("at the tip: a rollback, then a new block", async () => {
        const rows = await newest(4);
        const [tip, keep] = [rows[0]!, rows[3]!];
        const session = makeChainSync("mainnet");
        await run(session.findIntersection({ points: [pointOf(tip)] }));
        assert.equal(((await run(session.nextBlock(1))) as { direction: string }).direction, "backward");
        const waiting = runtime.runFork(session.nextBlock(1));
        await new Promise((r) => setTimeout(r, 300));
        assert.equal(waiting.unsafePoll(), null, "waits at the tip");
        await rollBack(keep);
        const back = plain(await runtime.runPromise(Fiber.join(waiting))) as {
          direction: string;
          point: unknown;
          tip: unknown;
        };
        assert.deepEqual(back, {
          direction: "backward",
          point: pointOf(keep),
          tip: { ...pointOf(keep), height: keep.height },
        });
        const next = runtime.runFork(session.nextBlock(1));
        await new Promise((r) => setTimeout(r, 300));
        assert.equal(next.unsafePoll(), null, "waits at the new tip");
        const [added] = await q<{ hash: string }>(
          `insert into block (id, hash, epoch_no, slot_no, epoch_slot_no, block_no, previous_id, slot_leader_id,
                              size, time, tx_count, proto_major, proto_minor, vrf_key, op_cert, op_cert_counter)
           select $2::bigint + 1, sha256(hash), epoch_no, slot_no + 3, epoch_slot_no + 3, block_no + 1, id,
                  slot_leader_id, 4, time + interval '3 seconds', 0, proto_major, proto_minor, vrf_key, op_cert,
                  op_cert_counter
           from block where id = $1 returning encode(hash, 'hex') as hash`,
          keep.id,
          tip.id,
        );
        const forward = plain(await runtime.runPromise(Fiber.join(next))) as {
          direction: string;
          block: { id: string; ancestor: string; height: number; transactions: Array<unknown> };
          tip: { id: string; height: number };
        };
        assert.equal(forward.direction, "forward");
        assert.deepEqual(
          [forward.block.id, forward.block.ancestor, forward.block.height, forward.block.transactions.length],
          [added!.hash, keep.hash, keep.height + 1, 0],
        );
        assert.deepEqual([forward.tip.id, forward.tip.height], [added!.hash, keep.height + 1]);
        const tips = await runtime.runPromise(ChainTips);
        assert.equal(tips.get("mainnet").current()?.hash, added!.hash, "ChainTips knows the new tip");
      });

      await t.step("behind the tip: back to the newest block shared with the chain", async () => {
        const rows = await newest(30);
        const [cursor, keep] = [rows[20]!, rows[25]!];
        const session = makeChainSync("mainnet");
        await run(session.findIntersection({ points: [pointOf(rows[21]!)] }));
        await run(session.nextBlock(1)); // backward to the intersection
        const step = await run(session.nextBlock(1)) as { block: { id: string } };
        assert.equal(step.block.id, cursor.hash);
        await rollBack(keep);
        const back = await run(session.nextBlock(1)) as { direction: string; point: unknown };
        assert.deepEqual([back.direction, back.point], ["backward", pointOf(keep)]);
      });

      await t.step("a malformed or unknown intersection leaves the cursor where it was", async () => {
        const session = makeChainSync("mainnet");
        const failed = await runtime.runPromiseExit(
          session.findIntersection({ points: [{ slot: 1, id: "00" }] }),
        );
        assert.ok(Exit.isFailure(failed));
        const missing = await runtime.runPromiseExit(
          session.findIntersection({ points: [{ slot: 1, id: "ab".repeat(32) }] }),
        );
        assert.ok(Exit.isFailure(missing));
        const first = await run(session.nextBlock(1)) as { direction: string; block: { height: number } };
        assert.deepEqual([first.direction, first.block.height], ["forward", 0], "still at the origin");
      });
    } finally {
      await runtime.dispose();
      await chain.close();
    }
  },
});
