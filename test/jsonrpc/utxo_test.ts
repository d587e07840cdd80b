/**
 * `queryLedgerState/utxo`: by addresses and by output references, equal to the unspent outputs in db-sync (tokens,
 * inline datums, datum hashes, reference scripts), valid against Ogmios' schema; every malformed filter -32602.
 */
import assert from "node:assert/strict";
import { startRestFixture } from "../support/rest.ts";
import { assertMatchesOgmiosSchema } from "../support/ogmios_schema.ts";

Deno.test({
  name: "queryLedgerState/utxo",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startRestFixture("utxo");
    const unspent =
      `not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)`;
    try {
      await t.step("by addresses: every unspent output, with tokens, datums and scripts", async () => {
        const picks = await f.query<{ address: string }>(
          "mainnet",
          `(select address from tx_out o where inline_datum_id is not null and ${unspent} limit 1)
           union all (select address from tx_out o where reference_script_id is not null and ${unspent} limit 1)
           union all (select o.address from tx_out o join ma_tx_out m on m.tx_out_id = o.id where ${unspent} limit 1)
           union all (select address from tx_out o where address not like 'addr%' and ${unspent} limit 1)`,
        );
        const addresses = [...new Set(picks.map((p) => p.address))];
        const r = await f.rpc("queryLedgerState/utxo", { addresses });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        await assertMatchesOgmiosSchema("ogmios.json#/properties/QueryLedgerStateUtxoResponse", r.body);
        const expected = await f.query<{ n: string; lovelace: string }>(
          "mainnet",
          `select count(*)::text as n, coalesce(sum(value), 0)::text as lovelace from tx_out o
           where address = any($1) and ${unspent}`,
          addresses,
        );
        assert.equal(r.body.result.length, Number(expected[0]!.n));
        const total = r.body.result.reduce(
          (s: bigint, u: { value: { ada: { lovelace: number } } }) => s + BigInt(u.value.ada.lovelace),
          0n,
        );
        assert.equal(total.toString(), expected[0]!.lovelace);
        assert.ok(
          r.body.result.some((u: { datum?: string }) => typeof u.datum === "string"),
          "an inline datum",
        );
        assert.ok(
          r.body.result.some((u: { script?: unknown }) => u.script !== undefined),
          "a reference script",
        );
        assert.ok(r.body.result.some((u: { value: object }) => Object.keys(u.value).length > 1), "tokens");
      });

      await t.step("by output references: unspent ones only", async () => {
        const [spent] = await f.query<{ h: string; i: number }>(
          "mainnet",
          `select encode(t.hash, 'hex') as h, o.index as i from tx_out o join tx t on t.id = o.tx_id
           where not (${unspent}) limit 1`,
        );
        const [live] = await f.query<{ h: string; i: number; value: string }>(
          "mainnet",
          `select encode(t.hash, 'hex') as h, o.index as i, o.value::text as value from tx_out o
           join tx t on t.id = o.tx_id where ${unspent} order by o.id desc limit 1`,
        );
        const r = await f.rpc("queryLedgerState/utxo", {
          outputReferences: [
            { transaction: { id: spent!.h }, index: spent!.i },
            { transaction: { id: live!.h }, index: live!.i },
            { transaction: { id: "ab".repeat(32) }, index: 0 },
          ],
        });
        assert.equal(r.body.result.length, 1);
        assert.deepEqual([r.body.result[0].transaction.id, r.body.result[0].index], [live!.h, live!.i]);
        assert.equal(String(r.body.result[0].value.ada.lovelace), live!.value);
        assert.deepEqual(
          (await f.rpc("queryLedgerState/utxo", {
            outputReferences: [{ transaction: { id: "cd".repeat(32) }, index: 3 }],
          })).body.result,
          [],
        );
      });

      await t.step("malformed or unbounded filters: -32602 saying what is wrong", async () => {
        const [preprodAddress] = await f.query<{ address: string }>(
          "preprod",
          "select address from tx_out where address like 'addr_test%' limit 1",
        );
        const cases: Array<[unknown, RegExp]> = [
          [undefined, /whole UTxO set/],
          [{}, /whole UTxO set/],
          [{ addresses: [] }, /non-empty array/],
          [{ addresses: ["61".repeat(29)] }, /is hex; give it in bech32/],
          [{ addresses: [preprodAddress!.address] }, /prefix addr_test; a mainnet address starts with addr1/],
          [{ addresses: ["addr1qxyz"] }, /is not valid bech32/],
          [{ addresses: [42] }, /must hold strings/],
          [{ outputReferences: [{ transaction: { id: "zz" }, index: 0 }] }, /each output reference must be/],
          [
            { outputReferences: [{ transaction: { id: "ab".repeat(32) }, index: -1 }] },
            /each output reference must be/,
          ],
        ];
        for (const [params, message] of cases) {
          const r = await f.rpc("queryLedgerState/utxo", params);
          assert.equal(r.status, 400, JSON.stringify(params));
          assert.equal(r.body.error.code, -32602, JSON.stringify(params));
          assert.match(r.body.error.message, message);
          assert.equal(r.body.method, "queryLedgerState/utxo");
        }
      });
    } finally {
      await f.close();
    }
  },
});
