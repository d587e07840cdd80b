/**
 * The planner's judgement of filters on chain-sized tables (src/graphql/plan_guard.ts) is asked for by the
 * compiler per root access through a filter, except where a unique column's `_eq` bounds the access to one row
 * (a block or transaction by hash): no EXPLAIN there, whatever else the filter says, and the same answer.
 */
import assert from "node:assert/strict";
import { Effect } from "effect";
import { getOperationAST, parse } from "graphql";
import { buildSchema } from "@src/graphql/build_schema.ts";
import { compileQuery } from "@src/graphql/compile.ts";
import { readSchemaModel } from "@src/queries/schema_model.ts";
import { createTestChain } from "../support/demo_chain.ts";

Deno.test({
  name: "plan probes: none for a unique column's equality",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const chain = await createTestChain("plan_probes");
    const run = <A>(e: Effect.Effect<A, unknown>) => Effect.runPromise(e as Effect.Effect<A, never>);
    try {
      const model = await run(readSchemaModel(chain.sql));
      const schema = buildSchema(model);
      const compiled = (query: string) =>
        compileQuery(schema, model, getOperationAST(parse(query))!, {}, {}, {}, undefined);
      const answer = async (query: string) => {
        const c = compiled(query);
        const rows = await run(chain.sql.unsafe<{ data: string }>(c.sql!, [...c.params]));
        return JSON.parse(rows[0]!.data);
      };
      const [tx] = await run(
        chain.sql.unsafe<{ hash: string; fee: string }>(
          "select encode(hash, 'hex') as hash, fee::text as fee from tx order by id desc limit 1",
        ),
      );
      const [block] = await run(
        chain.sql.unsafe<{ hash: string; no: number }>(
          "select encode(hash, 'hex') as hash, block_no as no from block where block_no is not null " +
            "order by id desc limit 1",
        ),
      );
      assert.ok(model.tables.get("tx")!.unique.has("hash") && model.tables.get("block")!.unique.has("hash"));

      const byHash = `{ tx(where: {hash: {_eq: "${tx!.hash}"}}) { fee } }`;
      assert.equal(compiled(byHash).probes.length, 0);
      assert.deepEqual(await answer(byHash), { tx: [{ fee: tx!.fee }] });
      // an unselective filter beside it: still one row at most, so still no probe
      const withRange = `{ tx(where: {_and: [{id: {_gt: 0}}, {hash: {_eq: "${tx!.hash}"}}]}) { fee } }`;
      assert.equal(compiled(withRange).probes.length, 0);
      assert.deepEqual(await answer(withRange), { tx: [{ fee: tx!.fee }] });
      const blockByHash = `{ block(where: {hash: {_eq: "${block!.hash}"}}) { block_no } }`;
      assert.equal(compiled(blockByHash).probes.length, 0);
      assert.deepEqual(await answer(blockByHash), { block: [{ block_no: block!.no }] });

      // anything else through a filter is still judged by the planner
      assert.equal(compiled(`{ tx(where: {hash: {_in: ["${tx!.hash}"]}}) { fee } }`).probes.length, 1);
      assert.equal(compiled(`{ tx(where: {id: {_gt: 0}}, limit: 1) { fee } }`).probes.length, 1);
      assert.equal(compiled(`{ block(where: {block_no: {_eq: ${block!.no}}}) { hash } }`).probes.length, 1);
    } finally {
      await chain.close();
    }
  },
});
