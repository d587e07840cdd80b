/**
 * What the GraphQL endpoint refuses, and how: syntax errors, unknown fields, bad variables, SQL-injection
 * attempts, depth limits per tier, queries that would scan chain-sized tables, oversized limits, malformed
 * bodies, missing keys and the GraphQL rate, each in the spec's error shape; introspection for tools; the
 * GraphiQL page and its assets.
 */
import assert from "node:assert/strict";
import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery } from "graphql";
import { GraphQLClient } from "graphql-request";
import { errorsOf, startGraphqlFixture } from "../support/graphql.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** `block { txes(limit: 1) { block { txes(limit: 1) { ... hash } } } }` nested `levels` deep. */
const nested = (levels: number) => {
  let inner = "hash";
  for (let level = levels; level > 1; level--) {
    inner = level % 2 === 0 ? `txes(limit: 1) { ${inner} }` : `block { ${inner} }`;
  }
  return `{ block(order_by: {id: desc}, limit: 1) { ${inner.replace(/^hash$/, "block_no")} } }`;
};

Deno.test({
  name: "graphql errors, limits and introspection",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startGraphqlFixture("graphql_errors", { GRAPHQL_RATE_FREE: "8" });
    try {
      await t.step("a syntax error: 200, parse-failed, path $.query", async () => {
        const r = await f.post({ query: "{ block(limit: 1 { hash } }" });
        assert.equal(r.status, 200);
        assert.deepEqual(Object.keys(r.body), ["errors"]);
        const [e] = r.body.errors;
        assert.deepEqual(Object.keys(e).sort(), ["extensions", "message"]);
        assert.equal(e.extensions.code, "parse-failed");
        assert.equal(e.extensions.path, "$.query");
        assert.match(e.message, /Syntax Error/);
      });

      await t.step(
        "unknown fields, arguments and types: validation-failed with the field's path",
        async () => {
          const [field] = await errorsOf(f.paid.request("{ block(limit: 1) { hash nope } }"));
          assert.equal(field!.extensions.code, "validation-failed");
          assert.equal(field!.extensions.path, "$.selectionSet.block.selectionSet.nope");
          assert.match(field!.message, /nope/);
          const [table] = await errorsOf(f.paid.request("{ blocks { hash } }"));
          assert.equal(table!.extensions.code, "validation-failed");
          const [arg] = await errorsOf(f.paid.request("{ block(first: 1) { hash } }"));
          assert.match(arg!.message, /first/);
          const [op] = await errorsOf(f.paid.request("{ block(where: {block_no: {_regex: 1}}) { hash } }"));
          assert.equal(op!.extensions.path, "$.selectionSet.block.args.where.block_no._regex");
          const [mutation] = await errorsOf(f.paid.request("mutation { delete_block { affected_rows } }"));
          assert.equal(mutation!.extensions.code, "validation-failed");
        },
      );

      await t.step("bad variables: missing, wrong type, malformed bigint and hex", async () => {
        const byNo = "query($n: Int!) { block(where: {block_no: {_eq: $n}}) { hash } }";
        const [missing] = await errorsOf(f.paid.request(byNo, {}));
        assert.equal(missing!.extensions.code, "validation-failed");
        assert.equal(missing!.extensions.path, "$.variableValues.n");
        const [wrong] = await errorsOf(f.paid.request(byNo, { n: "ten" }));
        assert.match(wrong!.message, /Int/);
        const [big] = await errorsOf(
          f.paid.request("query($s: bigint!) { block(where: {slot_no: {_eq: $s}}) { hash } }", { s: "12x" }),
        );
        assert.match(big!.message, /bigint: expected an integer/);
        const [hex] = await errorsOf(
          f.paid.request("query($h: bytea!) { tx(where: {hash: {_eq: $h}}) { id } }", { h: "not hex" }),
        );
        assert.match(hex!.message, /bytea: expected hex/);
        const [literal] = await errorsOf(f.paid.request(`{ tx(where: {hash: {_eq: "zz"}}) { id } }`));
        assert.equal(literal!.extensions.path, "$.selectionSet.tx.args.where.hash._eq");
        const [nullValue] = await errorsOf(
          f.paid.request("{ block(where: {block_no: {_eq: null}}) { hash } }"),
        );
        assert.match(nullValue!.message, /_is_null/);
      });

      await t.step(
        "values only PostgreSQL can refuse (an impossible date) are the query's fault too",
        async () => {
          const [date] = await errorsOf(
            f.paid.request(`{ block(where: {time: {_gt: "2026-02-30T00:00:00"}}) { id } }`),
          );
          assert.equal(date!.extensions.code, "validation-failed");
          assert.match(date!.message, /a value was refused: date\/time field value out of range/);
          const exponent = await f.paid.request<Json>(
            `{ pool_update(where: {pledge: {_gt: 1e5}}, limit: 1) { id } }`,
          );
          assert.equal(exponent.pool_update.length, 1);
        },
      );

      await t.step("SQL injection in strings, patterns, hex and names is only ever data", async () => {
        const attempts = [
          "'; drop table block; --",
          "pool1' or '1'='1",
          "%' or 1=1 --",
          "\\'; select pg_sleep(10); --",
          "$1) or true or ($1",
        ];
        for (const a of attempts) {
          const got = await f.paid.request<Json>(
            "query($v: String!) { eq: pool_hash(where: {view: {_eq: $v}}) { view } like: pool_hash(where: {view: {_like: $v}}) { view } ilike: pool_hash(where: {view: {_ilike: $v}}) { view } }",
            { v: a },
          );
          assert.deepEqual(got, { eq: [], like: [], ilike: [] }, a);
          const literal = await f.paid.request<Json>(
            `{ pool_hash(where: {view: {_like: ${JSON.stringify(a)}}}) { view } }`,
          );
          assert.deepEqual(literal.pool_hash, [], a);
        }
        const [hex] = await errorsOf(
          f.paid.request(`{ tx(where: {hash: {_eq: "00'); drop table tx; --"}}) { id } }`),
        );
        assert.equal(hex!.extensions.code, "validation-failed");
        const [enumValue] = await errorsOf(
          f.paid.request(`{ script(where: {id: {_lt: 5}, type: {_eq: "timelock' or 'a'='a"}}) { id } }`),
        );
        assert.match(enumValue!.message, /expected one of/);
        const [column] = await errorsOf(
          f.paid.request(`{ block(order_by: {"id; drop table block": asc}) { id } }`),
        );
        assert.equal(column!.extensions.code, "parse-failed");
        const [counted] = await f.query<{ n: number }>("mainnet", "select count(*)::int as n from block");
        assert.ok(counted!.n > 2000, "the block table is intact");
      });

      await t.step("depth: FREE allows 3 levels, PAID 10; introspection is not counted", async () => {
        const free3 = await f.free.request<Json>(nested(3));
        assert.equal(free3.block.length, 1);
        const [free4] = await errorsOf(f.free.request(nested(4)));
        assert.equal(free4!.extensions.code, "validation-failed");
        assert.match(free4!.message, /nested 4 levels deep; the FREE tier allows at most 3/);
        const paid10 = await f.paid.request<Json>(nested(10));
        assert.equal(paid10.block.length, 1);
        const [paid11] = await errorsOf(f.paid.request(nested(11)));
        assert.match(paid11!.message, /nested 11 levels deep; the PAID tier allows at most 10/);
        const [viaFragment] = await errorsOf(
          f.free.request(
            "{ block(limit: 1) { ...B } } fragment B on block { txes(limit: 1) { block { txes(limit: 1) { hash } } } }",
          ),
        );
        assert.match(viaFragment!.message, /nested 4 levels/);
      });

      await t.step(
        "introspection: the full query works on FREE and describes the generated schema",
        async () => {
          const intro = await f.free.request<IntrospectionQuery>(getIntrospectionQuery());
          const schema = buildClientSchema(intro);
          for (
            const table of [
              "block",
              "tx",
              "tx_out",
              "tx_in",
              "datum",
              "script",
              "redeemer",
              "pool_hash",
              "pool_update",
              "pool_metadata_ref",
              "stake_address",
              "epoch_stake",
              "epoch",
              "ada_pots",
            ]
          ) {
            assert.ok(schema.getType(table), table);
            assert.ok(schema.getQueryType()!.getFields()[`${table}_aggregate`], `${table}_aggregate`);
          }
          const tx = schema.getType("tx") as unknown as { getFields(): Record<string, { type: unknown }> };
          assert.equal(String(tx.getFields().block!.type), "block");
          assert.equal(String(tx.getFields().tx_outs!.type), "[tx_out!]!");
          assert.equal(String(schema.getQueryType()!.getFields().block_by_pk!.args[0]!.type), "bigint!");
          const where = schema.getType("bigint_comparison_exp") as unknown as {
            getFields(): Record<string, unknown>;
          };
          assert.deepEqual(
            Object.keys(where.getFields()).sort(),
            ["_eq", "_gt", "_gte", "_in", "_is_null", "_lt", "_lte", "_neq", "_nin"],
          );
          const mixed = await f.paid.request<Json>(
            "{ __typename epoch(limit: 1, order_by: {no: asc}) { no } }",
          );
          assert.deepEqual(mixed, { __typename: "query_root", epoch: [{ no: "0" }] });
          const r = await f.post({ query: "{ __schema { queryType { name } } }" });
          assert.equal(r.headers.get("x-sql-statements"), "0", "introspection answers without the database");
        },
      );

      await t.step(
        "chain-sized tables need an indexed filter, an index order or (aggregates) a limit",
        async () => {
          const [sorted] = await errorsOf(
            f.paid.request("{ tx_out(order_by: {value: desc}, limit: 5) { value } }"),
          );
          assert.equal(sorted!.extensions.code, "validation-failed");
          assert.match(
            sorted!.message,
            /tx_out is a chain-sized table: filter it .* indexed column \(id, tx_id/,
          );
          const [count] = await errorsOf(f.paid.request("{ tx_aggregate { aggregate { count } } }"));
          assert.match(count!.message, /or set a limit/);
          const [distinct] = await errorsOf(
            f.paid.request("{ tx_out(distinct_on: address, limit: 5) { address } }"),
          );
          assert.match(distinct!.message, /chain-sized/);
          const [byRelationship] = await errorsOf(
            f.paid.request("{ tx(order_by: {block: {time: desc}}, limit: 5) { hash } }"),
          );
          assert.match(byRelationship!.message, /order it by an indexed column/);
          // allowed: an index order, an indexed filter (also through a relationship), a small table
          await f.paid.request("{ tx_out(order_by: {id: desc}, limit: 5) { value } }");
          await f.paid.request(
            "{ tx_out(where: {tx: {block: {block_no: {_eq: 10}}}}, order_by: {value: desc}) { value } }",
          );
          await f.paid.request("{ pool_update(order_by: {pledge: desc}, limit: 5) { pledge } }");
        },
      );

      await t.step(
        "filters that do not narrow the scan are judged by the rows they match, against the tier's row budget",
        async () => {
          const [chain] = await f.query<{ txs: number; outs: number }>(
            "mainnet",
            "select (select count(*) from tx)::int as txs, (select count(*) from tx_out)::int as outs",
          );
          // the demo chain is small: all of tx fits FREE's 20,000 rows, all of tx_out does not
          assert.ok(chain!.txs > 2_000 && chain!.txs < 20_000 && chain!.outs > 20_000, JSON.stringify(chain));
          // the blocks holding the first 60% of the transactions: a range the planner sees matching most of tx
          const [range] = await f.query<{ from: number; to: number; count: number }>(
            "mainnet",
            "with r as (select min(block_id) as lo, (select block_id from tx order by id offset $1 limit 1) as hi " +
              "from tx) select r.lo::int as from, r.hi::int as to, " +
              "(select count(*) from tx where block_id between r.lo and r.hi)::int as count from r",
            Math.floor(chain!.txs * 0.6),
          );
          const halfChain = `{ tx_aggregate(where: {block_id: {_gte: ${range!.from}, _lte: ${range!.to}}}) ` +
            "{ aggregate { count } } }";
          const free = await f.free.request<Json>(halfChain);
          assert.equal(free.tx_aggregate.aggregate.count, range!.count);
          const all = await f.free.request<Json>(
            "{ tx_aggregate(where: {id: {_gt: 0}}) { aggregate { count } } }",
          );
          assert.equal(all.tx_aggregate.aggregate.count, chain!.txs);
          // more rows than the budget: refused as before, FREE past 20,000 and PAID within 2,000,000
          const outs = "{ tx_out_aggregate(where: {id: {_gt: 0}}) { aggregate { count } } }";
          const [refused] = await errorsOf(f.free.request(outs));
          assert.deepEqual(refused!.extensions, {
            path: "$.selectionSet.tx_out_aggregate",
            code: "validation-failed",
          });
          assert.match(
            refused!.message,
            /^the filter matches about 100% of tx_out's [\d,]+ rows \(the planner's estimate\): it does not narrow the scan, so it counts as no filter, and tx_out is a chain-sized table: .*or set a limit$/,
          );
          const paid = await f.paid.request<Json>(outs);
          assert.equal(paid.tx_out_aggregate.aggregate.count, chain!.outs);
          // the rows of a query's unselective filters add up: twice all of tx is past FREE's budget
          const twice = `{ a: tx_aggregate(where: {id: {_gt: 0}}) { aggregate { count } } ` +
            `b: tx_aggregate(where: {id: {_gt: 0}}) { aggregate { count } } }`;
          const [summed] = await errorsOf(f.free.request(twice));
          assert.equal(summed!.extensions.path, "$.selectionSet.b");
          assert.match(summed!.message, /matches about 100% of tx's [\d,]+ rows .* does not narrow the scan/);
          assert.equal((await f.paid.request<Json>(twice)).b.aggregate.count, chain!.txs);
        },
      );

      await t.step(
        "limits: maximum limit and offset, the nested-rows budget, aggregate nodes, _in size",
        async () => {
          const [limit] = await errorsOf(f.paid.request("{ block(limit: 5000) { hash } }"));
          assert.deepEqual(limit!.extensions, {
            path: "$.selectionSet.block.args.limit",
            code: "validation-failed",
          });
          const [offset] = await errorsOf(
            f.paid.request("{ block(order_by: {id: asc}, offset: 200000) { hash } }"),
          );
          assert.match(offset!.message, /offset must be from 0 to 100000/);
          const [budget] = await errorsOf(
            f.paid.request("{ block { txes { tx_outs { ma_tx_outs { quantity } } } } }"),
          );
          assert.match(
            budget!.message,
            /would return at least 101,010,100 rows .*the PAID limit is 2,000,000/,
          );
          const [nodes] = await errorsOf(f.paid.request("{ pool_hash_aggregate { nodes { view } } }"));
          assert.match(nodes!.message, /need a limit/);
          const [many] = await errorsOf(
            f.paid.request("query($v: [Int!]) { block(where: {block_no: {_in: $v}}) { hash } }", {
              v: Array.from({ length: 1001 }, (_, i) => i),
            }),
          );
          assert.match(many!.message, /_in takes at most 1000 values/);
          const [distinct] = await errorsOf(
            f.paid.request("{ pool_update(distinct_on: hash_id, order_by: {id: asc}) { id } }"),
          );
          assert.match(distinct!.message, /distinct_on/);
        },
      );

      await t.step("operations: operationName picks one; several without it is an error", async () => {
        const doc =
          "query A { epoch(limit: 1, order_by: {no: asc}) { no } } query B { epoch(limit: 1, order_by: {no: desc}) { no } }";
        const b = await f.post({ query: doc, operationName: "B" });
        assert.equal(b.body.data.epoch.length, 1);
        const none = await f.post({ query: doc });
        assert.equal(none.body.errors[0].extensions.code, "validation-failed");
        const unknown = await f.post({ query: doc, operationName: "C" });
        assert.match(unknown.body.errors[0].message, /no operation named "C"/);
      });

      await t.step("malformed bodies answer 400 (too large ones 413) in the same error shape", async () => {
        const notJson = await f.post("{ block { hash } }");
        assert.equal(notJson.status, 400);
        assert.deepEqual(notJson.body.errors[0].extensions, { path: "$", code: "invalid-json" });
        const noQuery = await f.post({ variables: {} });
        assert.equal(noQuery.status, 400);
        assert.deepEqual(noQuery.body.errors[0], {
          message: 'key "query" not found',
          extensions: { path: "$.query", code: "parse-failed" },
        });
        const badVariables = await f.post({ query: "{ epoch(limit: 1) { no } }", variables: [1] });
        assert.equal(badVariables.body.errors[0].extensions.path, "$.variables");
        // over MAX_BODY_BYTES (1 MiB by default): 413, in the same shape (test/resilience covers streamed bodies)
        const huge = await f.post({ query: `{ epoch(limit: 1) { no } } # ${"x".repeat(1_100_000)}` });
        assert.equal(huge.status, 413);
        assert.equal(huge.body.errors[0].extensions.code, "body-too-large");
      });

      await t.step(
        "the key: 401 without or with a wrong one, as GraphQL errors; same key on both networks",
        async () => {
          const missing = await f.post({ query: "{ epoch(limit: 1) { no } }" }, "/v1/graphql", "");
          assert.equal(missing.status, 401);
          assert.deepEqual(missing.body, {
            errors: [{ message: "API key required", extensions: { path: "$", code: "api-key-required" } }],
          });
          const wrong = await f.post(
            { query: "{ epoch(limit: 1) { no } }" },
            "/v1/preprod/graphql",
            "cds_" + "x".repeat(32),
          );
          assert.deepEqual(wrong.body, {
            errors: [{ message: "Invalid API key", extensions: { path: "$", code: "invalid-api-key" } }],
          });
          const preprod = await f.post({ query: "{ epoch(limit: 1) { no } }" }, "/v1/preprod/graphql");
          assert.equal(preprod.status, 200);
        },
      );

      await t.step("the GraphQL rate (GRAPHQL_RATE_FREE=8 here) answers 429 past the budget", async () => {
        const key = await f.newKey("free");
        const client = new GraphQLClient(`${f.service.base}/v1/graphql`, { headers: { apikey: key } });
        // the budget is per wall-clock second: start at the top of one, and send more than twice the budget, so
        // even a burst split over two seconds puts more than 8 into one of them
        await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000)));
        const statuses = await Promise.all(
          Array.from(
            { length: 20 },
            () =>
              client.rawRequest("{ epoch(limit: 1) { no } }").then(() => 200, (e) => e.response?.status ?? 0),
          ),
        );
        assert.ok(statuses.includes(200));
        assert.ok(statuses.includes(429), statuses.join(","));
      });

      await t.step("GET serves GraphiQL with its assets from npm; unknown assets 404", async () => {
        for (const path of ["/v1/graphql", "/v1/preprod/graphql"]) {
          const page = await fetch(`${f.service.base}${path}`);
          assert.equal(page.status, 200);
          const html = await page.text();
          assert.match(html, /GraphiQL/);
          assert.ok(html.includes(JSON.stringify(path)));
        }
        for (
          const asset of [
            "graphiql.min.js",
            "graphiql.min.css",
            "react.production.min.js",
            "react-dom.production.min.js",
          ]
        ) {
          const r = await fetch(`${f.service.base}/v1/graphiql/${asset}`);
          assert.equal(r.status, 200, asset);
          assert.ok((await r.arrayBuffer()).byteLength > 1000);
        }
        const missing = await fetch(`${f.service.base}/v1/graphiql/..%2Fpackage.json`);
        assert.equal(missing.status, 404);
        await missing.body?.cancel();
      });
    } finally {
      await f.close();
    }
  },
});
