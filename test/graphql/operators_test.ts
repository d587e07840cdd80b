/**
 * Every `where` operator of the spec (and _nlike/_nilike, _and/_or/_not, jsonb _contains/_has_key) through a
 * real client, each compared with the same condition written directly in SQL on the demo chain. Cases are data:
 * a GraphQL filter on a table, the SQL condition on the same table, and the column compared.
 */
import assert from "node:assert/strict";
import { startGraphqlFixture } from "../support/graphql.ts";

interface Case {
  readonly name: string;
  readonly table: string;
  /** The where argument, in GraphQL syntax; `$v` is the variable below when there is one. */
  readonly where: string;
  readonly variable?: { readonly type: string; readonly value: unknown };
  /** The same condition in SQL over the table aliased `t` (fixed literals only). */
  readonly sql: string;
}

/** An epoch window keeps chain-sized tables on an indexed filter, as the service requires. */
const epoch2 = "{epoch_no: {_eq: 2}}";

const cases: ReadonlyArray<Case> = [
  { name: "_eq", table: "block", where: "{block_no: {_eq: 40}}", sql: "t.block_no = 40" },
  {
    name: "_neq",
    table: "block",
    where: `{_and: [${epoch2}, {block_no: {_neq: 800}}]}`,
    sql: "t.epoch_no = 2 and t.block_no <> 800",
  },
  { name: "_gt", table: "block", where: "{block_no: {_gt: 2200}}", sql: "t.block_no > 2200" },
  { name: "_gte", table: "block", where: "{block_no: {_gte: 2200}}", sql: "t.block_no >= 2200" },
  { name: "_lt", table: "block", where: "{block_no: {_lt: 30}}", sql: "t.block_no < 30" },
  { name: "_lte", table: "block", where: "{block_no: {_lte: 30}}", sql: "t.block_no <= 30" },
  {
    name: "_in",
    table: "block",
    where: "{block_no: {_in: [3, 5, 8, 13]}}",
    sql: "t.block_no in (3, 5, 8, 13)",
  },
  { name: "_in empty", table: "block", where: "{block_no: {_in: []}}", sql: "false" },
  {
    name: "_nin",
    table: "block",
    where: `{epoch_no: {_eq: 2}, block_no: {_nin: [800, 801]}}`,
    sql: "t.epoch_no = 2 and t.block_no not in (800, 801)",
  },
  { name: "_is_null true", table: "block", where: "{block_no: {_is_null: true}}", sql: "t.block_no is null" },
  {
    name: "_is_null false",
    table: "block",
    where: `{epoch_no: {_eq: 0}, block_no: {_is_null: false}}`,
    sql: "t.epoch_no = 0 and t.block_no is not null",
  },
  { name: "_like", table: "pool_hash", where: `{view: {_like: "pool1q%"}}`, sql: "t.view like 'pool1q%'" },
  { name: "_ilike", table: "pool_hash", where: `{view: {_ilike: "POOL1Q%"}}`, sql: "t.view ilike 'pool1q%'" },
  { name: "_nlike", table: "pool_hash", where: `{view: {_nlike: "%q%"}}`, sql: "t.view not like '%q%'" },
  { name: "_nilike", table: "pool_hash", where: `{view: {_nilike: "%Q%"}}`, sql: "t.view not ilike '%q%'" },
  {
    name: "_like with _ and an escaped %",
    table: "pool_hash",
    where: `{view: {_like: "pool1_z%"}}`,
    sql: "t.view like 'pool1_z%'",
  },
  {
    name: "numeric _gte (lovelace)",
    table: "pool_update",
    where: `{pledge: {_gte: "1000000000"}}`,
    sql: "t.pledge >= 1000000000",
  },
  { name: "float8 _lt", table: "pool_update", where: "{margin: {_lt: 0.03}}", sql: "t.margin < 0.03" },
  {
    name: "timestamp range",
    table: "block",
    where: `{time: {_gte: "2026-08-10T00:00:00", _lt: "2026-08-11T00:00:00"}}`,
    sql: "t.time >= '2026-08-10' and t.time < '2026-08-11'",
  },
  {
    name: "bigint variable",
    table: "block",
    where: "{slot_no: {_gt: $v}}",
    variable: { type: "bigint!", value: "2400000" },
    sql: "t.slot_no > 2400000",
  },
  {
    name: "bytea _in (hex, any case)",
    table: "tx",
    where: "{hash: {_in: $v}}",
    variable: { type: "[bytea!]!", value: [] }, // filled from the chain below
    sql: "t.id in (10, 20, 30)",
  },
  {
    name: "enum _eq",
    table: "script",
    where: `{id: {_lt: 400}, type: {_eq: "timelock"}}`,
    sql: "t.id < 400 and t.type = 'timelock'",
  },
  {
    name: "Boolean _eq",
    table: "tx",
    where: "{block_id: {_lt: 900}, valid_contract: {_eq: false}}",
    sql: "t.block_id < 900 and not t.valid_contract",
  },
  {
    name: "_or",
    table: "block",
    where: "{_or: [{block_no: {_eq: 7}}, {block_no: {_gt: 2230}}]}",
    sql: "t.block_no = 7 or t.block_no > 2230",
  },
  {
    name: "_not",
    table: "pool_hash",
    where: `{_not: {view: {_like: "pool1q%"}}}`,
    sql: "not (t.view like 'pool1q%')",
  },
  {
    name: "_and of ranges",
    table: "block",
    where: "{_and: [{block_no: {_gt: 100}}, {block_no: {_lte: 110}}]}",
    sql: "t.block_no > 100 and t.block_no <= 110",
  },
  {
    name: "through an object relationship",
    table: "pool_update",
    where: `{pool_hash: {view: {_like: "pool1q%"}}}`,
    sql: "exists (select 1 from pool_hash h where h.id = t.hash_id and h.view like 'pool1q%')",
  },
  {
    name: "through an array relationship",
    table: "pool_hash",
    where: `{pool_updates: {pledge: {_gt: "5000000000"}}}`,
    sql: "exists (select 1 from pool_update u where u.hash_id = t.id and u.pledge > 5000000000)",
  },
  {
    name: "jsonb _has_key",
    table: "tx_metadata",
    where: `{tx_id: {_lt: 3000}, json: {_has_key: "msg"}}`,
    sql: "t.tx_id < 3000 and t.json ? 'msg'",
  },
];

Deno.test({
  name: "graphql where operators",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startGraphqlFixture("graphql_operators");
    try {
      const hashes = await f.query<{ hash: string }>(
        "mainnet",
        "select encode(hash, 'hex') as hash from tx where id in (10, 20, 30)",
      );
      for (const c of cases) {
        await t.step(`${c.name} (${c.table})`, async () => {
          const expected = await f.query<{ id: string }>(
            "mainnet",
            `select t.id::text as id from ${c.table} t where ${c.sql} order by t.id limit 1000`,
          );
          const value = c.name.startsWith("bytea")
            ? hashes.map((h, i) => i === 0 ? h.hash.toUpperCase() : h.hash)
            : c.variable?.value;
          const declare = c.variable ? `($v: ${c.variable.type})` : "";
          const got = await f.paid.request<Record<string, Array<{ id: string }>>>(
            `query ${declare} { rows: ${c.table}(where: ${c.where}, order_by: {id: asc}, limit: 1000) { id } }`,
            c.variable ? { v: value } : {},
          );
          assert.deepEqual(got.rows, expected);
          if (!["_in empty", "_is_null true"].includes(c.name)) {
            assert.ok(expected.length > 0, "the case selects some rows, so it can tell right from wrong");
          }
        });
      }
      await t.step("jsonb _contains", async () => {
        const [row] = await f.query<{ id: string; json: unknown }>(
          "mainnet",
          "select id::text as id, json from tx_metadata where jsonb_typeof(json) = 'object' order by id limit 1",
        );
        const expected = await f.query<{ id: string }>(
          "mainnet",
          "select id::text as id from tx_metadata where id <= $1 and json @> $2::jsonb order by id",
          row!.id,
          JSON.stringify(row!.json),
        );
        const got = await f.paid.request<Record<string, unknown>>(
          "query($j: jsonb, $id: bigint) { tx_metadata(where: {id: {_lte: $id}, json: {_contains: $j}}, order_by: {id: asc}) { id } }",
          { j: row!.json, id: row!.id },
        );
        assert.deepEqual(got.tx_metadata, expected);
      });
    } finally {
      await f.close();
    }
  },
});
