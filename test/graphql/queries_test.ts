/**
 * GraphQL queries through a real client (graphql-request) against the running service, each compared with
 * direct SQL on the same demo chain: lists, by primary key, relationships three and more levels deep, filters and
 * ordering through relationships, distinct_on, aggregates, variables, fragments, both networks, and one SQL
 * statement per query.
 */
import assert from "node:assert/strict";
import { gql } from "graphql-request";
import { startGraphqlFixture } from "../support/graphql.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const iso = (d: Date) => d.toISOString().replace(/\.000Z$/, "").replace(/Z$/, "");

Deno.test({
  name: "graphql queries",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startGraphqlFixture("graphql_queries");
    try {
      await t.step(
        "latest blocks: order_by, limit, hex hashes, bigint as exact strings, timestamps",
        async () => {
          const expected = await f.query<
            { block_no: number; hash: string; slot_no: string; time: Date; tx_count: string }
          >(
            "mainnet",
            `select block_no, encode(hash, 'hex') as hash, slot_no, time, tx_count from block
           where block_no is not null order by block_no desc limit 5`,
          );
          const got = await f.paid.request<Json>(gql`
          { block(where: {block_no: {_is_null: false}}, order_by: {block_no: desc}, limit: 5) {
              block_no hash slot_no time tx_count } }`);
          assert.deepEqual(got.block, expected.map((b) => ({ ...b, time: iso(b.time) })));
        },
      );

      await t.step(
        "an epoch's blocks by block_no (read through idx_cds_block_epoch_no_block_no_size_tx_count): the rows of the plain SQL",
        async () => {
          // the compiler writes these through the (epoch_no, block_no) index (compile.ts, pairIndexOrder)
          const [index] = await f.query<{ n: number }>(
            "mainnet",
            "select count(*)::int as n from pg_indexes where indexname = 'idx_cds_block_epoch_no_block_no_size_tx_count'",
          );
          assert.equal(index!.n, 1, "the demo chain has the index, so the rewritten statement is what runs");
          const epochs = await f.query<{ e: number }>(
            "mainnet",
            "select distinct epoch_no as e from block where block_no is not null order by e",
          );
          assert.ok(epochs.length >= 2, "blocks of several epochs");
          const fields = "block_no epoch_no slot_no time tx_count hash";
          const plain = (e: number, where: string, order: string, limit: number, offset: number) =>
            f.query<
              {
                block_no: number;
                epoch_no: number;
                slot_no: string;
                time: Date;
                tx_count: string;
                hash: string;
              }
            >(
              "mainnet",
              `select block_no, epoch_no, slot_no::text as slot_no, time, tx_count::text as tx_count,
                      encode(hash, 'hex') as hash
                 from block where epoch_no = $1 ${where} order by ${order} limit $2 offset $3`,
              e,
              limit,
              offset,
            );
          for (const { e } of [epochs[0]!, epochs[Math.floor(epochs.length / 2)]!, epochs.at(-1)!]) {
            const cases = [
              { order: "{block_no: desc}", sql: "block_no desc nulls first", extra: "", where: "", o: 3 },
              { order: "{block_no: asc}", sql: "block_no asc nulls last", extra: "", where: "", o: 0 },
              {
                order: "{block_no: desc_nulls_last}",
                sql: "block_no desc nulls last",
                extra: ", _neq: -1",
                where: "and epoch_no <> -1",
                o: 1,
              },
              {
                order: "[{block_no: asc}, {slot_no: desc}]",
                sql: "block_no asc nulls last, slot_no desc nulls first",
                extra: "",
                where: "and block_no is not null",
                o: 2,
              },
            ];
            for (const c of cases) {
              const expected = await plain(e, c.where, c.sql, 7, c.o);
              const got = await f.paid.request<Json>(
                `query Blocks($e: Int!, $n: Int!, $o: Int!) {
                  block(where: {epoch_no: {_eq: $e${c.extra}}${
                  c.where.includes("block_no") ? ", block_no: {_is_null: false}" : ""
                }}, order_by: ${c.order}, limit: $n, offset: $o) { ${fields} } }`,
                { e, n: 7, o: c.o },
              );
              assert.deepEqual(
                got.block,
                expected.map((b) => ({ ...b, time: iso(b.time) })),
                `epoch ${e}, ${c.order}`,
              );
            }
            const [count] = await f.query<{ n: number }>(
              "mainnet",
              "select count(*)::int as n from (select 1 from block where epoch_no = $1 limit 5) b",
              e,
            );
            const aggregate = await f.paid.request<Json>(
              `query A($e: Int!) { block_aggregate(where: {epoch_no: {_eq: $e}}, order_by: {block_no: desc},
                 limit: 5) { aggregate { count } nodes { block_no } } }`,
              { e },
            );
            const nodes = await plain(e, "", "block_no desc nulls first", 5, 0);
            assert.deepEqual(aggregate.block_aggregate, {
              aggregate: { count: count!.n },
              nodes: nodes.map((b) => ({ block_no: b.block_no })),
            });
          }
        },
      );

      await t.step("by primary key with a bigint! variable; a missing row is null", async () => {
        const [tx] = await f.query<{ id: string; hash: string; fee: string; size: number }>(
          "mainnet",
          "select id, encode(hash, 'hex') as hash, fee::text as fee, size from tx where id = 5000",
        );
        const query = gql`query Tx($id: bigint!) { tx_by_pk(id: $id) { id hash fee size } }`;
        assert.deepEqual((await f.paid.request<Json>(query, { id: "5000" })).tx_by_pk, tx);
        assert.deepEqual(
          (await f.paid.request<Json>(query, { id: 5000 })).tx_by_pk,
          tx,
          "a number works too",
        );
        assert.equal((await f.paid.request<Json>(query, { id: "999999999" })).tx_by_pk, null);
      });

      await t.step(
        "a transaction with its block, inputs (spent outputs) and outputs with assets",
        async () => {
          const [tx] = await f.query<{ id: string; hash: string }>(
            "mainnet",
            `select t.id, encode(t.hash, 'hex') as hash from tx t
           where exists (select 1 from tx_out o join ma_tx_out m on m.tx_out_id = o.id where o.tx_id = t.id)
             and exists (select 1 from tx_in i where i.tx_in_id = t.id)
           order by t.id limit 1`,
          );
          const outputs = await f.query<{ index: number; value: string; address: string; assets: Json }>(
            "mainnet",
            `select o.index, o.value::text as value, o.address,
                  coalesce((select json_agg(json_build_object('quantity', m.quantity::text,
                     'multi_asset', json_build_object('policy', encode(a.policy, 'hex'), 'name', encode(a.name, 'hex')))
                     order by m.id)
                   from ma_tx_out m join multi_asset a on a.id = m.ident where m.tx_out_id = o.id), '[]') as assets
           from tx_out o where o.tx_id = $1 order by o.index`,
            tx!.id,
          );
          const inputs = await f.query<{ tx_out_index: number; hash: string; value: string }>(
            "mainnet",
            `select i.tx_out_index, encode(s.hash, 'hex') as hash, o.value::text as value from tx_in i
           join tx s on s.id = i.tx_out_id join tx_out o on o.tx_id = i.tx_out_id and o.index = i.tx_out_index
           where i.tx_in_id = $1 order by i.id`,
            tx!.id,
          );
          const [block] = await f.query<{ block_no: number; epoch_no: number }>(
            "mainnet",
            "select b.block_no, b.epoch_no from block b join tx t on t.block_id = b.id where t.id = $1",
            tx!.id,
          );
          const got = await f.paid.request<Json>(
            gql`query Tx($hash: bytea!) {
            tx(where: {hash: {_eq: $hash}}) {
              hash
              block { block_no epoch_no }
              tx_ins(order_by: {id: asc}) { tx_out_index out_tx { hash } tx_out { value } }
              tx_outs(order_by: {index: asc}) {
                index value address
                ma_tx_outs(order_by: {id: asc}) { quantity multi_asset { policy name } }
              }
            }
          }`,
            { hash: tx!.hash.toUpperCase() },
          );
          assert.deepEqual(got.tx, [{
            hash: tx!.hash,
            block,
            tx_ins: inputs.map((i) => ({
              tx_out_index: i.tx_out_index,
              out_tx: { hash: i.hash },
              tx_out: { value: i.value },
            })),
            tx_outs: outputs.map((o) => ({
              index: o.index,
              value: o.value,
              address: o.address,
              ma_tx_outs: o.assets,
            })),
          }]);
        },
      );

      await t.step(
        "array relationships three levels deep: block -> txes -> tx_outs -> ma_tx_outs",
        async () => {
          const [block] = await f.query<{ block_no: number }>(
            "mainnet",
            `select b.block_no from block b join tx t on t.block_id = b.id join tx_out o on o.tx_id = t.id
           join ma_tx_out m on m.tx_out_id = o.id where b.block_no is not null order by b.id limit 1`,
          );
          const expected = await f.query<{ txes: Json }>(
            "mainnet",
            `select coalesce(json_agg(json_build_object('hash', encode(t.hash, 'hex'), 'tx_outs',
             (select coalesce(json_agg(json_build_object('index', o.index, 'ma_tx_outs',
                (select coalesce(json_agg(json_build_object('quantity', m.quantity::text) order by m.id), '[]')
                 from ma_tx_out m where m.tx_out_id = o.id)) order by o.index), '[]')
              from tx_out o where o.tx_id = t.id)) order by t.block_index), '[]') as txes
           from tx t join block b on b.id = t.block_id where b.block_no = $1`,
            block!.block_no,
          );
          const got = await f.paid.request<Json>(
            gql`query Deep($n: Int!) {
            block(where: {block_no: {_eq: $n}}, limit: 1) {
              txes(order_by: {block_index: asc}) {
                hash
                tx_outs(order_by: {index: asc}) { index ma_tx_outs(order_by: {id: asc}) { quantity } }
              }
            }
          }`,
            { n: block!.block_no },
          );
          assert.deepEqual(got.block, [{ txes: expected[0]!.txes }]);
          assert.ok(
            JSON.stringify(got).includes("quantity"),
            "the chosen block has assets three levels down",
          );
        },
      );

      await t.step("one SQL statement per query, however deep (X-SQL-Statements)", async () => {
        const r = await f.post({
          query: `{ block(order_by: {id: desc}, limit: 3) { txes(limit: 5) { tx_outs(limit: 5) {
                     ma_tx_outs(limit: 5) { multi_asset { policy } } } block { epoch_no } } } }`,
        });
        assert.equal(r.status, 200);
        assert.ok(r.body.data.block.length === 3);
        assert.equal(r.headers.get("x-sql-statements"), "1");
      });

      await t.step("filters through object and array relationships", async () => {
        const [row] = await f.query<{ n: number; hash: string; block_no: number }>(
          "mainnet",
          `select (select count(*)::int from tx t join block b on b.id = t.block_id where b.epoch_no = 2) as n,
                  encode(t.hash, 'hex') as hash, b.block_no
           from tx t join block b on b.id = t.block_id where t.id = 3000`,
        );
        const byBlock = await f.paid.request<Json>(gql`
          { tx_aggregate(where: {block: {epoch_no: {_eq: 2}}}) { aggregate { count } } }`);
        assert.equal(byBlock.tx_aggregate.aggregate.count, row!.n);
        const byTx = await f.paid.request<Json>(
          gql`query($h: bytea!) { block(where: {txes: {hash: {_eq: $h}}}) { block_no } }`,
          { h: row!.hash },
        );
        assert.deepEqual(byTx.block, [{ block_no: row!.block_no }]);
      });

      await t.step(
        "order_by through an object relationship and by an array relationship's count",
        async () => {
          const byBlock = await f.query<{ hash: string }>(
            "mainnet",
            `select encode(t.hash, 'hex') as hash from tx t join block b on b.id = t.block_id
           where b.epoch_no = 3 order by b.block_no desc, t.id asc limit 4`,
          );
          const got = await f.paid.request<Json>(gql`
          { tx(where: {block: {epoch_no: {_eq: 3}}}, order_by: [{block: {block_no: desc}}, {id: asc}], limit: 4) { hash } }`);
          assert.deepEqual(got.tx, byBlock);
          const busiest = await f.query<{ block_no: number; n: string }>(
            "mainnet",
            `select b.block_no, (select count(*) from tx t where t.block_id = b.id)::text as n from block b
           where b.epoch_no = 3 order by (select count(*) from tx t where t.block_id = b.id) desc, b.id asc limit 3`,
          );
          const byCount = await f.paid.request<Json>(gql`
          { block(where: {epoch_no: {_eq: 3}}, order_by: [{txes_aggregate: {count: desc}}, {id: asc}], limit: 3) {
              block_no txes_aggregate { aggregate { count } } } }`);
          assert.deepEqual(
            byCount.block,
            busiest.map((b) => ({
              block_no: b.block_no,
              txes_aggregate: { aggregate: { count: Number(b.n) } },
            })),
          );
        },
      );

      await t.step("order_by keys apply in the order written, in the query and in variables", async () => {
        const expected = await f.query<{ id: string }>(
          "mainnet",
          "select id from block where epoch_no = 1 order by tx_count desc, id asc limit 6",
        );
        const literal = await f.paid.request<Json>(gql`
          { block(where: {epoch_no: {_eq: 1}}, order_by: {tx_count: desc, id: asc}, limit: 6) { id } }`);
        assert.deepEqual(literal.block, expected);
        const variable = await f.paid.request<Json>(
          gql`query($o: [block_order_by!]) { block(where: {epoch_no: {_eq: 1}}, order_by: $o, limit: 6) { id } }`,
          { o: { tx_count: "desc", id: "asc" } },
        );
        assert.deepEqual(variable.block, expected);
      });

      await t.step("distinct_on: each pool's latest update", async () => {
        const expected = await f.query<{ hash_id: string; pledge: string }>(
          "mainnet",
          `select distinct on (hash_id) hash_id, pledge::text as pledge from pool_update
           order by hash_id asc, registered_tx_id desc, cert_index desc limit 10`,
        );
        const got = await f.paid.request<Json>(gql`
          { pool_update(distinct_on: hash_id,
                        order_by: [{hash_id: asc}, {registered_tx_id: desc}, {cert_index: desc}], limit: 10) {
              hash_id pledge } }`);
        assert.deepEqual(got.pool_update, expected);
      });

      await t.step(
        "aggregates: count, sum, avg, min, max; exact sums past 2^53; nodes with a limit",
        async () => {
          const [epochs] = await f.query<Json>(
            "mainnet",
            `select count(*)::int as count, sum(fees)::text as fees, sum(out_sum)::text as out_sum,
                  avg(tx_count)::float8 as avg_tx, max(no)::text as max_no, min(start_time) as first
           from epoch`,
          );
          const got = await f.paid.request<Json>(gql`
          { epoch_aggregate { aggregate { count sum { fees out_sum } avg { tx_count } max { no } min { start_time } } } }`);
          assert.deepEqual(got.epoch_aggregate.aggregate, {
            count: epochs.count,
            sum: { fees: epochs.fees, out_sum: epochs.out_sum },
            avg: { tx_count: epochs.avg_tx },
            max: { no: epochs.max_no },
            min: { start_time: iso(epochs.first) },
          });
          assert.ok(
            BigInt(epochs.out_sum) > 2n ** 53n,
            "the demo chain's output sum is past 2^53, so exactness is tested",
          );

          const [blocks] = await f.query<{ count: number; leaders: number; size: string }>(
            "mainnet",
            `select count(*)::int as count, count(distinct slot_leader_id)::int as leaders, sum(size)::text as size
           from block where epoch_no = 4`,
          );
          const b = await f.paid.request<Json>(gql`
          { block_aggregate(where: {epoch_no: {_eq: 4}}) {
              aggregate { count leaders: count(columns: [slot_leader_id], distinct: true) sum { size } } } }`);
          assert.deepEqual(b.block_aggregate.aggregate, {
            count: blocks!.count,
            leaders: blocks!.leaders,
            sum: { size: blocks!.size },
          });

          const pools = await f.query<{ view: string; updates: number; pledge: string }>(
            "mainnet",
            `select h.view, (select count(*)::int from pool_update u where u.hash_id = h.id) as updates,
                  (select max(pledge)::text from pool_update u where u.hash_id = h.id) as pledge
           from pool_hash h order by h.id limit 3`,
          );
          const p = await f.paid.request<Json>(gql`
          { pool_hash_aggregate(order_by: {id: asc}, limit: 3) {
              aggregate { count }
              nodes { view pool_updates_aggregate { aggregate { count max { pledge } } } } } }`);
          assert.equal(p.pool_hash_aggregate.aggregate.count, 3);
          assert.deepEqual(
            p.pool_hash_aggregate.nodes,
            pools.map((x) => ({
              view: x.view,
              pool_updates_aggregate: { aggregate: { count: x.updates, max: { pledge: x.pledge } } },
            })),
          );
        },
      );

      await t.step("variables: Int, Int!, String, defaults and omitted optionals", async () => {
        const query = gql`query Pools($limit: Int = 2, $prefix: String, $offset: Int!) {
          pool_hash(order_by: {id: asc}, limit: $limit, offset: $offset, where: {view: {_like: $prefix}}) { view }
        }`;
        const all = await f.query<{ view: string }>("mainnet", "select view from pool_hash order by id");
        assert.deepEqual((await f.paid.request<Json>(query, { offset: 1 })).pool_hash, all.slice(1, 3));
        const got = await f.paid.request<Json>(query, { limit: 4, offset: 0, prefix: "pool1%" });
        assert.deepEqual(got.pool_hash, all.slice(0, 4));
      });

      await t.step("fragments, inline fragments, aliases, @include/@skip, __typename", async () => {
        const [tip] = await f.query<{ block_no: number; hash: string }>(
          "mainnet",
          "select block_no, encode(hash, 'hex') as hash from block order by id desc limit 1",
        );
        const got = await f.paid.request<Json>(
          gql`query Tip($withHash: Boolean!) {
            tip: block(order_by: {id: desc}, limit: 1) { ...Fields __typename n: block_no }
          }
          fragment Fields on block { block_no ... on block { hash @include(if: $withHash) time @skip(if: true) } }`,
          { withHash: true },
        );
        assert.deepEqual(got, {
          tip: [{ block_no: tip!.block_no, hash: tip!.hash, __typename: "block", n: tip!.block_no }],
        });
      });

      await t.step("the network comes from the URL: preprod answers from the preprod chain", async () => {
        const [pre] = await f.query<{ hash: string }>(
          "preprod",
          "select encode(hash, 'hex') as hash from block order by id desc limit 1",
        );
        const [main] = await f.query<{ hash: string }>(
          "mainnet",
          "select encode(hash, 'hex') as hash from block order by id desc limit 1",
        );
        const query = gql`{ block(order_by: {id: desc}, limit: 1) { hash } }`;
        assert.deepEqual((await f.preprod.request<Json>(query)).block, [pre]);
        assert.deepEqual((await f.paid.request<Json>(query)).block, [main]);
        assert.notEqual(pre!.hash, main!.hash);
      });

      await t.step("jsonb comes back as JSON; numeric and float8 as documented", async () => {
        const [meta] = await f.query<{ id: string; key: string; json: Json }>(
          "mainnet",
          "select id, key::text as key, json from tx_metadata where json is not null order by id limit 1",
        );
        const got = await f.paid.request<Json>(
          gql`query($id: bigint!) { tx_metadata(where: {id: {_eq: $id}}) { key json } }`,
          { id: meta!.id },
        );
        assert.deepEqual(got.tx_metadata, [{ key: meta!.key, json: meta!.json }]);
        const [update] = await f.query<{ margin: number; fixed_cost: string }>(
          "mainnet",
          "select margin, fixed_cost::text as fixed_cost from pool_update order by id limit 1",
        );
        const u = await f.paid.request<Json>(
          gql`{ pool_update(order_by: {id: asc}, limit: 1) { margin fixed_cost } }`,
        );
        assert.deepEqual(u.pool_update, [update]);
        assert.equal(typeof u.pool_update[0].margin, "number");
      });
    } finally {
      await f.close();
    }
  },
});
