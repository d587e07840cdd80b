/** GraphQL list, by-pk and nested queries through a real client, compared with direct SQL on the demo chain. */
import assert from "node:assert/strict";
import { gql } from "graphql-request";
import { startGraphqlFixture } from "../support/graphql.ts";

Deno.test({
  name: "graphql queries",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startGraphqlFixture("graphql_queries");
    try {
      await t.step("latest blocks: order_by, limit, hex hashes, exact bigint strings", async () => {
        const expected = await f.query<
          { block_no: number; hash: string; slot_no: string; time: Date; tx_count: string }
        >(
          "mainnet",
          `select block_no, encode(hash, 'hex') as hash, slot_no, time, tx_count from block
           where block_no is not null order by block_no desc limit 5`,
        );
        const got = await f.paid.request<{ block: Array<Record<string, unknown>> }>(gql`
          { block(where: {block_no: {_is_null: false}}, order_by: {block_no: desc}, limit: 5) {
              block_no hash slot_no time tx_count } }`);
        assert.deepEqual(
          got.block,
          expected.map((b) => ({
            block_no: b.block_no,
            hash: b.hash,
            slot_no: b.slot_no,
            time: b.time.toISOString().slice(0, 19),
            tx_count: b.tx_count,
          })),
        );
      });
    } finally {
      await f.close();
    }
  },
});
