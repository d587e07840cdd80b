/**
 * The Blockfrost dialect's addresses endpoints on both networks, against Blockfrost's published schema: an
 * address's holdings, its unspent outputs (also by payment credential, and holding one asset) and its
 * transactions, walked page by page as the providers walk them, compared with SQL on the same chain and with our
 * explorer's answers for the same address; unknown addresses are 404, malformed ones 400.
 */
import assert from "node:assert/strict";
import { validatorToScriptHash } from "@lucid-evolution/utils";
import { bech32 } from "@scure/base";
import { Blockfrost } from "@lucid-evolution/provider";
import type { Network } from "@schemas/network.ts";
import {
  assertBlockfrostShape,
  type BlockfrostFixture,
  startBlockfrostFixture,
} from "../support/blockfrost.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Unspent in every spent-tracking mode (tx_in empty unless db-sync fills it, consumed_by_tx_id likewise). */
const unspent = `o.consumed_by_tx_id is null
  and not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)`;

/**
 * Every page of a listing, as the providers fetch them: page 1, 2, … until an empty array, each page (the empty
 * one too) validated against Blockfrost's schema for `template`.
 */
const walk = async (f: BlockfrostFixture, network: Network, path: string, template: string, query = "") => {
  const all: Array<Json> = [];
  for (let page = 1;; page++) {
    const r = await f.bf(`${path}?page=${page}${query}`, network);
    assert.equal(r.status, 200, `${path} page ${page}: ${JSON.stringify(r.body)}`);
    assertBlockfrostShape("GET", template, r);
    if (r.body.length === 0) return all;
    all.push(...r.body);
  }
};

const utxosTemplate = "/addresses/{address}/utxos";
const assetUtxosTemplate = "/addresses/{address}/utxos/{asset}";
const transactionsTemplate = "/addresses/{address}/transactions";

const outRef = (u: { tx_hash: string; output_index: number }) => `${u.tx_hash}#${u.output_index}`;

/** An enterprise address nobody was ever paid at. */
const unknownAddress = (network: Network) =>
  bech32.encode(
    network === "mainnet" ? "addr" : "addr_test",
    bech32.toWords(new Uint8Array([network === "mainnet" ? 0x61 : 0x60, ...new Array(28).fill(0xab)])),
    1023,
  );

Deno.test({
  name: "blockfrost: addresses, their UTxOs and transactions",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startBlockfrostFixture("bf_addresses");
    try {
      for (const network of ["mainnet", "preprod"] as const) {
        const q = <A extends object>(text: string, ...params: Array<unknown>) =>
          f.query<A>(network, text, ...params);
        // the payment address with the most unspent outputs holding tokens
        const [busy] = await q<{ address: string; cred: string }>(
          `select o.address, encode(o.payment_cred, 'hex') as cred from tx_out o
           where o.payment_cred is not null and ${unspent}
             and exists (select 1 from ma_tx_out m where m.tx_out_id = o.id)
           group by o.address, o.payment_cred order by count(*) desc limit 1`,
        );
        const address = busy!.address;

        await t.step(`${network}: an address's holdings equal SQL's and the explorer's`, async () => {
          const r = await f.bf(`/addresses/${address}`, network);
          assertBlockfrostShape("GET", "/addresses/{address}", r);
          const explorer = (await f.get(`/v2/explorer/${network}/address/${address}`)).body;
          assert.equal(r.body.address, address);
          assert.equal(r.body.amount[0].unit, "lovelace");
          assert.equal(r.body.amount[0].quantity, explorer.balance);
          assert.equal(r.body.amount.length - 1, explorer.tokenCount);
          assert.equal(r.body.stake_address, explorer.stakeAddress ?? null);
          assert.equal(r.body.type, "shelley");
          assert.equal(r.body.script, explorer.type === "script");
          const held = await q<{ unit: string; quantity: string }>(
            `select encode(m.policy, 'hex') || encode(m.name, 'hex') as unit, sum(mo.quantity)::text as quantity
             from tx_out o join ma_tx_out mo on mo.tx_out_id = o.id join multi_asset m on m.id = mo.ident
             where o.address = $1 and ${unspent} group by m.id order by m.id`,
            address,
          );
          assert.ok(held.length > 0);
          assert.deepEqual(r.body.amount.slice(1), held.map((h) => ({ unit: h.unit, quantity: h.quantity })));
          const [sum] = await q<{ lovelace: string }>(
            `select coalesce(sum(o.value), 0)::text as lovelace from tx_out o where o.address = $1 and ${unspent}`,
            address,
          );
          assert.equal(r.body.amount[0].quantity, sum!.lovelace);
          // bech32 in upper case is the same address
          const upper = await f.bf(`/addresses/${address.toUpperCase()}`, network);
          assert.equal(upper.status, 200);
          assert.deepEqual(upper.body, r.body);
        });

        await t.step(`${network}: Byron and script addresses`, async () => {
          const [byron] = await q<{ address: string }>(
            `select address from tx_out where address not like 'addr%' order by id limit 1`,
          );
          const b = await f.bf(`/addresses/${byron!.address}`, network);
          assertBlockfrostShape("GET", "/addresses/{address}", b);
          assert.equal(b.body.type, "byron");
          assert.equal(b.body.script, false);
          assert.equal(b.body.stake_address, null);
          const [script] = await q<{ address: string }>(
            `select address from tx_out where address_has_script order by id limit 1`,
          );
          const s = await f.bf(`/addresses/${script!.address}`, network);
          assertBlockfrostShape("GET", "/addresses/{address}", s);
          assert.equal(s.body.script, true);
          assert.equal(s.body.type, "shelley");
        });

        await t.step(`${network}: unknown addresses are 404, malformed ones 400`, async () => {
          const unknown = unknownAddress(network);
          const other = network === "mainnet" ? "preprod" : "mainnet";
          const cases: Array<[string, string]> = [
            [`/addresses/${unknown}`, "/addresses/{address}"],
            [`/addresses/${unknown}/utxos`, "/addresses/{address}/utxos"],
            [`/addresses/${unknown}/transactions`, "/addresses/{address}/transactions"],
          ];
          for (const [path, template] of cases) {
            const r = await f.bf(path, network);
            assert.equal(r.status, 404, path);
            assertBlockfrostShape("GET", template, r);
          }
          const [stake] = await q<{ view: string }>(`select view from stake_address order by id limit 1`);
          const malformed: Array<[string, string]> = [
            [`/addresses/addr1notanaddress`, "/addresses/{address}"],
            [`/addresses/${unknownAddress(other)}`, "/addresses/{address}"],
            [`/addresses/${stake!.view}`, "/addresses/{address}"],
            [`/addresses/${address}/utxos?count=101`, "/addresses/{address}/utxos"],
            [`/addresses/${address}/utxos?page=0`, "/addresses/{address}/utxos"],
            [`/addresses/${address}/utxos?order=newest`, "/addresses/{address}/utxos"],
            [`/addresses/${address}/utxos/nothex`, "/addresses/{address}/utxos/{asset}"],
            [`/addresses/${address}/transactions?from=yesterday`, "/addresses/{address}/transactions"],
            [`/addresses/addr_vkh1notacredential/utxos`, "/addresses/{address}/utxos"],
          ];
          for (const [path, template] of malformed) {
            const r = await f.bf(path, network);
            assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
            assertBlockfrostShape("GET", template, r);
          }
        });

        await t.step(
          `${network}: UTxOs page by page, both orders, equal SQL's and the explorer's`,
          async () => {
            const expected = await q<{ ref: string }>(
              `select encode(t.hash, 'hex') || '#' || o.index as ref from tx_out o join tx t on t.id = o.tx_id
             where o.address = $1 and ${unspent} order by o.id`,
              address,
            );
            assert.ok(expected.length > 10, `${address} has ${expected.length} UTxOs`);
            const asc = await walk(f, network, `/addresses/${address}/utxos`, utxosTemplate, "&count=40");
            assert.deepEqual(asc.map(outRef), expected.map((e) => e.ref));
            const desc = await walk(
              f,
              network,
              `/addresses/${address}/utxos`,
              utxosTemplate,
              "&count=100&order=desc",
            );
            assert.deepEqual(desc.map(outRef), expected.map((e) => e.ref).reverse());
            const page2 = await f.bf(`/addresses/${address}/utxos?count=5&page=2`, network);
            assertBlockfrostShape("GET", "/addresses/{address}/utxos", page2);
            assert.deepEqual(page2.body, asc.slice(5, 10));
            for (const u of asc) {
              assert.equal(u.address, address);
              assert.equal(u.tx_index, u.output_index);
            }
            // the explorer's page of the same outputs
            const explorer =
              (await f.get(`/v2/explorer/${network}/address/${address}/utxos?page=2&limit=5`)).body;
            assert.deepEqual(
              page2.body.map((u: Json) => ({
                ref: outRef(u),
                lovelace: u.amount[0].quantity,
                units: u.amount.slice(1).map((a: Json) => `${a.unit}:${a.quantity}`),
                data_hash: u.data_hash,
              })),
              explorer.data.map((u: Json) => ({
                ref: `${u.txHash}#${u.outputIndex}`,
                lovelace: u.value,
                units: u.tokens.map((k: Json) => `${k.policyId}${k.assetNameHex}:${k.quantity}`),
                data_hash: u.datumHash ?? null,
              })),
            );
            const [block] = await q<{ hash: string }>(
              `select encode(b.hash, 'hex') as hash from tx t join block b on b.id = t.block_id
             where t.hash = decode($1, 'hex')`,
              page2.body[0].tx_hash,
            );
            assert.equal(page2.body[0].block, block!.hash);
          },
        );

        await t.step(`${network}: inline datums and reference scripts on outputs`, async () => {
          for (const column of ["inline_datum_id", "reference_script_id"]) {
            const [out] = await q<
              { address: string; ref: string; datum: string | null; script: string | null }
            >(
              `select o.address, encode(t.hash, 'hex') || '#' || o.index as ref, encode(d.bytes, 'hex') as datum,
                      encode(s.hash, 'hex') as script
               from tx_out o join tx t on t.id = o.tx_id left join datum d on d.id = o.inline_datum_id
               left join script s on s.id = o.reference_script_id
               where o.${column} is not null and ${unspent} order by o.id limit 1`,
            );
            assert.ok(out, `an unspent output with ${column}`);
            const all = await walk(f, network, `/addresses/${out.address}/utxos`, utxosTemplate);
            const u = all.find((x) => outRef(x) === out.ref);
            assert.ok(u);
            assert.equal(u.inline_datum, out.datum);
            assert.equal(u.reference_script_hash, out.script);
          }
        });

        await t.step(`${network}: Lucid Evolution's Blockfrost provider reads the same UTxOs`, async () => {
          // the address with the fewest UTxOs among those holding a reference script (Lucid fetches the script)
          const [holder] = await q<{ address: string; cred: string }>(
            `select o.address, encode(o.payment_cred, 'hex') as cred from tx_out o
             where o.payment_cred is not null and ${unspent}
               and o.address in (select address from tx_out o where o.reference_script_id is not null and ${unspent})
             group by o.address, o.payment_cred order by count(*), o.address limit 1`,
          );
          const expected = await q<{ ref: string; script: string | null }>(
            `select encode(t.hash, 'hex') || '#' || o.index as ref, encode(s.hash, 'hex') as script
             from tx_out o join tx t on t.id = o.tx_id left join script s on s.id = o.reference_script_id
             where o.address = $1 and ${unspent} order by o.id`,
            holder!.address,
          );
          const lucid = new Blockfrost(f.baseUrl(network), f.key);
          const utxos = await lucid.getUtxos(holder!.address);
          assert.deepEqual(
            utxos.map((u) => `${u.txHash}#${u.outputIndex}`).sort(),
            expected.map((e) => e.ref).sort(),
          );
          const withScript = utxos.filter((u) => u.scriptRef);
          assert.equal(withScript.length, expected.filter((e) => e.script).length);
          for (const u of withScript) {
            const e = expected.find((x) => x.ref === `${u.txHash}#${u.outputIndex}`)!;
            assert.equal(validatorToScriptHash(u.scriptRef!), e.script);
          }
          // by credential: every address with that payment part (here one), a 404 read as none
          const byCredential = await lucid.getUtxos({ type: "Key", hash: holder!.cred });
          assert.equal(byCredential.length >= utxos.length, true);
          const none = await lucid.getUtxos({ type: "Key", hash: "cd".repeat(28) });
          assert.deepEqual(none, []);
        });

        await t.step(`${network}: UTxOs of a payment credential, addr_vkh1 and script1`, async () => {
          const [shared] = await q<{ cred: string; script: boolean }>(
            `select encode(o.payment_cred, 'hex') as cred, bool_or(o.address_has_script) as script
             from tx_out o where o.payment_cred is not null and ${unspent}
             group by o.payment_cred having count(distinct o.address) > 1 order by count(*) desc limit 1`,
          );
          const [scripted] = await q<{ cred: string }>(
            `select encode(o.payment_cred, 'hex') as cred from tx_out o
             where o.address_has_script and ${unspent} group by o.payment_cred order by count(*) desc limit 1`,
          );
          for (const [cred, prefix] of [[shared!.cred, "addr_vkh"], [scripted!.cred, "script"]] as const) {
            const text = bech32.encode(
              prefix,
              bech32.toWords(Uint8Array.from(Buffer.from(cred, "hex"))),
              1023,
            );
            const expected = await q<{ ref: string; address: string }>(
              `select encode(t.hash, 'hex') || '#' || o.index as ref, o.address from tx_out o
               join tx t on t.id = o.tx_id where o.payment_cred = decode($1, 'hex') and ${unspent} order by o.id`,
              cred,
            );
            const first = await f.bf(`/addresses/${text}/utxos?count=3`, network);
            assertBlockfrostShape("GET", "/addresses/{address}/utxos", first);
            const all = await walk(f, network, `/addresses/${text}/utxos`, utxosTemplate);
            assert.deepEqual(all.map((u) => [outRef(u), u.address]), expected.map((e) => [e.ref, e.address]));
          }
          const never = bech32.encode("addr_vkh", bech32.toWords(new Uint8Array(28).fill(0xcd)), 1023);
          const r = await f.bf(`/addresses/${never}/utxos`, network);
          assert.equal(r.status, 404);
          assertBlockfrostShape("GET", "/addresses/{address}/utxos", r);
        });

        await t.step(`${network}: UTxOs holding one asset`, async () => {
          const [asset] = await q<{ unit: string; n: number }>(
            `select encode(m.policy, 'hex') || encode(m.name, 'hex') as unit, count(*)::int as n
             from tx_out o join ma_tx_out mo on mo.tx_out_id = o.id join multi_asset m on m.id = mo.ident
             where o.address = $1 and ${unspent} group by m.id order by count(*) desc, m.id limit 1`,
            address,
          );
          const holding = await walk(
            f,
            network,
            `/addresses/${address}/utxos/${asset!.unit}`,
            assetUtxosTemplate,
            "&count=2",
          );
          assert.equal(holding.length, asset!.n);
          for (const u of holding) assert.ok(u.amount.some((a: Json) => a.unit === asset!.unit));
          const r = await f.bf(`/addresses/${address}/utxos/${asset!.unit}?count=1`, network);
          assertBlockfrostShape("GET", assetUtxosTemplate, r);
          // an asset the address does not hold: an empty page, not a 404
          const none = await f.bf(`/addresses/${address}/utxos/${"00".repeat(28)}`, network);
          assert.equal(none.status, 200);
          assertBlockfrostShape("GET", assetUtxosTemplate, none);
          assert.deepEqual(none.body, []);
          // an address the chain never saw is a 404, whatever the asset
          const unknown = await f.bf(`/addresses/${unknownAddress(network)}/utxos/${asset!.unit}`, network);
          assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
          assertBlockfrostShape("GET", assetUtxosTemplate, unknown);
        });

        await t.step(`${network}: an address that holds nothing now answers empty pages`, async () => {
          const [spent] = await q<{ address: string }>(
            `select o.address from tx_out o where o.payment_cred is not null group by o.address
             having bool_and(not (${unspent})) order by o.address limit 1`,
          );
          const r = await f.bf(`/addresses/${spent!.address}/utxos`, network);
          assert.equal(r.status, 200);
          assert.deepEqual(r.body, []);
          assertBlockfrostShape("GET", "/addresses/{address}/utxos", r);
          const info = await f.bf(`/addresses/${spent!.address}`, network);
          assertBlockfrostShape("GET", "/addresses/{address}", info);
          assert.deepEqual(info.body.amount, [{ unit: "lovelace", quantity: "0" }]);
        });

        await t.step(`${network}: transactions page by page, both orders, bounds`, async () => {
          const expected = await q<{ hash: string; idx: number; height: number; time: number }>(
            `select encode(t.hash, 'hex') as hash, t.block_index as idx, b.block_no as height,
                    extract(epoch from b.time)::bigint as time
             from tx t join block b on b.id = t.block_id
             where t.id in (select o.tx_id from tx_out o where o.address = $1
                            union select i.tx_in_id from tx_out o
                                  join tx_in i on i.tx_out_id = o.tx_id and i.tx_out_index = o.index
                                  where o.address = $1)
             order by t.id`,
            address,
          );
          const wanted = expected.map((e) => ({
            tx_hash: e.hash,
            tx_index: Number(e.idx),
            block_height: Number(e.height),
            block_time: Number(e.time),
          }));
          const first = await f.bf(`/addresses/${address}/transactions?count=3`, network);
          assertBlockfrostShape("GET", "/addresses/{address}/transactions", first);
          const asc = await walk(
            f,
            network,
            `/addresses/${address}/transactions`,
            transactionsTemplate,
            "&count=100",
          );
          assert.deepEqual(asc, wanted);
          const desc = await walk(
            f,
            network,
            `/addresses/${address}/transactions`,
            transactionsTemplate,
            "&count=40&order=desc",
          );
          assert.deepEqual(desc, [...wanted].reverse());
          const middle = wanted[Math.floor(wanted.length / 2)]!;
          const from = await walk(
            f,
            network,
            `/addresses/${address}/transactions`,
            transactionsTemplate,
            `&from=${middle.block_height}:${middle.tx_index}`,
          );
          assert.deepEqual(from, wanted.slice(wanted.indexOf(middle)));
          const to = await walk(
            f,
            network,
            `/addresses/${address}/transactions`,
            transactionsTemplate,
            `&to=${middle.block_height}`,
          );
          assert.deepEqual(to, wanted.filter((w) => w.block_height <= middle.block_height));
        });
      }
    } finally {
      await f.close();
    }
  },
});
