/**
 * The Blockfrost dialect's transactions endpoints on both networks' seeded chains: every answer (found, unknown,
 * malformed) against Blockfrost's published schema; content, counts, UTxOs (spent, collateral and reference
 * inputs, outputs with their spenders, collateral returns), metadata and redeemers against SQL on db-sync's rows
 * and against our explorer's answer for the same transaction; CBOR that db-sync did not keep is a 404 that says
 * so; Lucid Evolution's provider reads outputs by reference through /utxos. Submission is in tx_submit_test.ts
 * (it needs the devnet).
 */
import assert from "node:assert/strict";
import { Blockfrost } from "@lucid-evolution/provider";
import type { Network } from "@schemas/network.ts";
import {
  assertBlockfrostShape,
  type BlockfrostFixture,
  startBlockfrostFixture,
} from "../support/blockfrost.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const endpoints = ["", "/utxos", "/cbor", "/metadata", "/metadata/cbor", "/redeemers"] as const;

/** One transaction of each kind the endpoints tell apart, found by SQL on the network's chain. */
const samples = async (f: BlockfrostFixture, network: Network): Promise<Record<string, string>> => {
  const one = async (name: string, where: string) => {
    const [row] = await f.query<{ hash: string }>(
      network,
      `select encode(t.hash, 'hex') as hash from tx t where ${where} order by t.id limit 1`,
    );
    assert.ok(row, `${network}: the seeded chain has a transaction with ${name}`);
    return [name, row.hash] as const;
  };
  return Object.fromEntries(
    await Promise.all([
      one(
        "tokens",
        "exists (select 1 from tx_out o join ma_tx_out m on m.tx_out_id = o.id where o.tx_id = t.id)",
      ),
      // a unit seen first that sorts after one seen later: output_amount's order is the units', not the outputs'
      one(
        "tokens out of unit order",
        `exists (select 1 from tx_out o1 join ma_tx_out m1 on m1.tx_out_id = o1.id
                   join multi_asset a1 on a1.id = m1.ident,
                 tx_out o2 join ma_tx_out m2 on m2.tx_out_id = o2.id join multi_asset a2 on a2.id = m2.ident
                 where o1.tx_id = t.id and o2.tx_id = t.id and (o1.index, m1.id) < (o2.index, m2.id)
                   and a1.policy || a1.name > a2.policy || a2.name)`,
      ),
      one("reference inputs", "exists (select 1 from reference_tx_in r where r.tx_in_id = t.id)"),
      one(
        "a collateral return",
        "exists (select 1 from collateral_tx_out c where c.tx_id = t.id)",
      ),
      one("failed scripts", "not t.valid_contract"),
      one("redeemers", "exists (select 1 from redeemer r where r.tx_id = t.id)"),
      one("metadata", "exists (select 1 from tx_metadata m where m.tx_id = t.id)"),
      one("a mint", "exists (select 1 from ma_tx_mint m where m.tx_id = t.id)"),
      one("a delegation", "exists (select 1 from delegation d where d.tx_id = t.id)"),
      one("a pool registration", "exists (select 1 from pool_update p where p.registered_tx_id = t.id)"),
      one("a withdrawal", "exists (select 1 from withdrawal w where w.tx_id = t.id)"),
      one("a stake registration", "exists (select 1 from stake_registration r where r.tx_id = t.id)"),
      one(
        "a reference script output",
        "exists (select 1 from tx_out o where o.tx_id = t.id and o.reference_script_id is not null)",
      ),
      one(
        "an inline datum",
        "exists (select 1 from tx_out o where o.tx_id = t.id and o.inline_datum_id is not null)",
      ),
    ]),
  );
};

interface SqlTx {
  readonly id: string;
  readonly block: string;
  readonly block_height: number | null;
  readonly block_time: number;
  readonly slot: string | null;
  readonly index: number;
  readonly fees: string;
  readonly deposit: string | null;
  readonly size: number;
  readonly invalid_before: string | null;
  readonly invalid_hereafter: string | null;
  readonly valid_contract: boolean;
  readonly treasury_donation: string;
  readonly out_sum: string;
}

const count = async (f: BlockfrostFixture, network: Network, text: string, id: string) =>
  Number((await f.query<{ n: string }>(network, `select (${text})::text as n`, id))[0]!.n);

/** /txs/{hash} against db-sync's rows, counted as Blockfrost's own backend counts them. */
const checkContentWithSql = async (f: BlockfrostFixture, network: Network, hash: string, body: Json) => {
  const [t] = await f.query<SqlTx>(
    network,
    `select t.id::text as id, encode(b.hash, 'hex') as block, b.block_no as block_height,
            extract(epoch from b.time)::int as block_time, b.slot_no::text as slot, t.block_index as index,
            t.fee::text as fees, t.deposit::text as deposit, t.size, t.invalid_before::text as invalid_before,
            t.invalid_hereafter::text as invalid_hereafter, t.valid_contract, t.treasury_donation::text as treasury_donation,
            t.out_sum::text as out_sum
     from tx t join block b on b.id = t.block_id where t.hash = decode($1, 'hex')`,
    hash,
  );
  assert.ok(t);
  assert.equal(body.hash, hash);
  assert.equal(body.block, t.block);
  assert.equal(body.block_height, t.block_height ?? 0);
  assert.equal(body.block_time, t.block_time);
  assert.equal(body.slot, Number(t.slot ?? 0));
  assert.equal(body.index, t.index);
  assert.equal(body.fees, t.fees);
  if (t.deposit !== null) assert.equal(body.deposit, t.deposit);
  assert.equal(body.size, t.size);
  assert.equal(body.invalid_before, t.invalid_before);
  assert.equal(body.invalid_hereafter, t.invalid_hereafter);
  assert.equal(body.valid_contract, t.valid_contract);
  assert.equal(body.treasury_donation, t.treasury_donation);
  const tokens = await f.query<{ unit: string; quantity: string }>(
    network,
    `select encode(m.policy, 'hex') || encode(m.name, 'hex') as unit, sum(mo.quantity)::text as quantity
     from tx_out o join ma_tx_out mo on mo.tx_out_id = o.id join multi_asset m on m.id = mo.ident
     where o.tx_id = $1 group by 1 order by 1`,
    t.id,
  );
  // summed per unit, lovelace first, then by unit as Blockfrost's backend orders them
  assert.deepEqual(body.output_amount, [{ unit: "lovelace", quantity: t.out_sum }, ...tokens]);
  const counts: Record<string, string> = {
    utxo_count:
      "(select count(*) from tx_in where tx_in_id = $1::bigint) + (select count(*) from tx_out where tx_id = $1::bigint)",
    withdrawal_count: "select count(*) from withdrawal where tx_id = $1::bigint",
    mir_cert_count:
      "select count(distinct cert_index) from (select cert_index from reserve where tx_id = $1::bigint " +
      "union all select cert_index from treasury where tx_id = $1::bigint) m",
    delegation_count: "select count(*) from delegation where tx_id = $1::bigint",
    stake_cert_count: "(select count(*) from stake_registration where tx_id = $1::bigint) + " +
      "(select count(*) from stake_deregistration where tx_id = $1::bigint)",
    pool_update_count: "select count(*) from pool_update where registered_tx_id = $1::bigint",
    pool_retire_count: "select count(*) from pool_retire where announced_tx_id = $1::bigint",
    asset_mint_or_burn_count: "select count(*) from ma_tx_mint where tx_id = $1::bigint",
    redeemer_count: "select count(*) from redeemer where tx_id = $1::bigint",
  };
  for (const [field, text] of Object.entries(counts)) {
    assert.equal(body[field], await count(f, network, text, t.id), `${hash} ${field}`);
  }
};

const amountOf = (value: string, tokens: ReadonlyArray<Json> = []) => [
  { unit: "lovelace", quantity: value },
  ...tokens.map((t) => ({ unit: t.policyId + t.assetNameHex, quantity: t.quantity })),
];

/** The same transaction as our explorer answers it: the same values, in Blockfrost's shapes. */
const checkWithExplorer = (content: Json, utxos: Json, metadata: Json, explorer: Json) => {
  assert.equal(content.fees, explorer.fee);
  assert.equal(content.block_height, explorer.blockNo);
  assert.equal(content.slot, explorer.slotNo);
  assert.equal(content.block_time, Date.parse(explorer.blockTime) / 1000);
  assert.equal(content.output_amount[0].quantity, explorer.totalOutput);
  assert.equal(content.deposit, (BigInt(explorer.deposit) - BigInt(explorer.depositRefund)).toString());
  assert.equal(content.valid_contract, explorer.validContract);
  assert.equal(content.withdrawal_count, explorer.withdrawals.length);
  assert.equal(content.asset_mint_or_burn_count, explorer.mints.length);
  const input = (i: Json) => ({
    tx_hash: i.txHash,
    output_index: i.outputIndex,
    address: i.address,
    amount: amountOf(i.value, i.tokens),
    data_hash: i.datumHash ?? null,
  });
  const pick = (i: Json) => ({
    tx_hash: i.tx_hash,
    output_index: i.output_index,
    address: i.address,
    amount: i.amount,
    data_hash: i.data_hash,
  });
  assert.deepEqual(
    utxos.inputs.filter((i: Json) => !i.collateral && !i.reference).map(pick),
    explorer.inputs.map(input),
  );
  assert.deepEqual(utxos.inputs.filter((i: Json) => i.collateral).map(pick), explorer.collateral.map(input));
  // a failed transaction's one output is its collateral return
  const created = utxos.outputs.filter((o: Json) => explorer.validContract ? !o.collateral : o.collateral);
  assert.deepEqual(
    created.map((o: Json) => ({
      index: o.output_index,
      address: o.address,
      amount: o.amount,
      datumHash: o.data_hash,
      inlineDatum: o.inline_datum,
      spentBy: o.consumed_by_tx,
    })),
    explorer.outputs.map((o: Json) => ({
      index: o.index,
      address: o.address,
      amount: amountOf(o.value, o.tokens),
      datumHash: o.datumHash ?? null,
      inlineDatum: o.inlineDatum ?? null,
      spentBy: o.spentByTxHash ?? null,
    })),
  );
  assert.deepEqual(
    metadata.map((m: Json) => [m.label, m.json_metadata]),
    explorer.metadata.map((m: Json) => [m.key, m.json]),
  );
};

/** /txs/{hash}/utxos and /redeemers against db-sync's rows. */
const checkUtxosWithSql = async (
  f: BlockfrostFixture,
  network: Network,
  hash: string,
  utxos: Json,
  redeemers: Json,
) => {
  const rows = (text: string) => f.query<Json>(network, text, hash);
  const references = await rows(
    `select encode(st.hash, 'hex') as tx_hash, r.tx_out_index as output_index
     from tx t join reference_tx_in r on r.tx_in_id = t.id join tx st on st.id = r.tx_out_id
     where t.hash = decode($1, 'hex') order by st.hash, r.tx_out_index`,
  );
  assert.deepEqual(
    utxos.inputs.filter((i: Json) => i.reference).map((i: Json) => ({
      tx_hash: i.tx_hash,
      output_index: i.output_index,
    })),
    references,
  );
  const outputs = await rows(
    `select o.index as output_index, encode(s.hash, 'hex') as reference_script_hash, encode(d.bytes, 'hex') as inline_datum
     from tx t join tx_out o on o.tx_id = t.id left join script s on s.id = o.reference_script_id
     left join datum d on d.id = o.inline_datum_id
     where t.hash = decode($1, 'hex') and t.valid_contract order by o.index`,
  );
  assert.deepEqual(
    utxos.outputs.filter((o: Json) => !o.collateral).map((o: Json) => ({
      output_index: o.output_index,
      reference_script_hash: o.reference_script_hash,
      inline_datum: o.inline_datum,
    })),
    outputs,
  );
  const collateralOutputs = await rows(
    `select c.index as output_index, c.address, c.value::text as lovelace
     from tx t join collateral_tx_out c on c.tx_id = t.id where t.hash = decode($1, 'hex') order by c.index`,
  );
  assert.deepEqual(
    utxos.outputs.filter((o: Json) => o.collateral).map((o: Json) => ({
      output_index: o.output_index,
      address: o.address,
      lovelace: o.amount[0].quantity,
    })),
    collateralOutputs,
  );
  // a valid transaction's collateral return never existed; a failed one's is a real output (its spender checked
  // against the explorer)
  if (utxos.outputs.some((o: Json) => !o.collateral)) {
    for (const o of utxos.outputs.filter((o: Json) => o.collateral)) {
      assert.equal(o.consumed_by_tx ?? null, null);
    }
  }
  const sqlRedeemers = await rows(
    `select r.index as tx_index, r.purpose::text as purpose, encode(r.script_hash, 'hex') as script_hash,
            encode(d.hash, 'hex') as redeemer_data_hash, encode(d.hash, 'hex') as datum_hash,
            r.unit_mem::text as unit_mem, r.unit_steps::text as unit_steps, r.fee::text as fee
     from tx t join redeemer r on r.tx_id = t.id join redeemer_data d on d.id = r.redeemer_data_id
     where t.hash = decode($1, 'hex') order by r.index, r.id`,
  );
  assert.deepEqual(redeemers, sqlRedeemers);
};

Deno.test({
  name: "blockfrost: transactions' content, UTxOs, CBOR, metadata and redeemers",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startBlockfrostFixture("bf_txs");
    try {
      for (const network of ["mainnet", "preprod"] as const) {
        const cases = await samples(f, network);

        await t.step(
          `${network}: every kind of transaction against the schema, SQL and the explorer`,
          async () => {
            for (const [name, hash] of Object.entries(cases)) {
              const content = await f.bf(`/txs/${hash}`, network);
              assert.equal(content.status, 200, name);
              assertBlockfrostShape("GET", "/txs/{hash}", content);
              const utxos = await f.bf(`/txs/${hash}/utxos`, network);
              assertBlockfrostShape("GET", "/txs/{hash}/utxos", utxos);
              const metadata = await f.bf(`/txs/${hash}/metadata`, network);
              assertBlockfrostShape("GET", "/txs/{hash}/metadata", metadata);
              const redeemers = await f.bf(`/txs/${hash}/redeemers`, network);
              assertBlockfrostShape("GET", "/txs/{hash}/redeemers", redeemers);
              await checkContentWithSql(f, network, hash, content.body);
              await checkUtxosWithSql(f, network, hash, utxos.body, redeemers.body);
              const explorer = await f.get(`/v2/explorer/${network}/tx/${hash}`);
              assert.equal(explorer.status, 200);
              checkWithExplorer(content.body, utxos.body, metadata.body, explorer.body);
            }
          },
        );

        await t.step(`${network}: metadata as CBOR, label by label, as db-sync keeps it`, async () => {
          const hash = cases.metadata!;
          const cbor = await f.bf(`/txs/${hash}/metadata/cbor`, network);
          assertBlockfrostShape("GET", "/txs/{hash}/metadata/cbor", cbor);
          const rows = await f.query<{ key: string; cbor: string }>(
            network,
            `select m.key::text as key, encode(m.bytes, 'hex') as cbor from tx_metadata m join tx t on t.id = m.tx_id
             where t.hash = decode($1, 'hex') order by m.id`,
            hash,
          );
          assert.ok(rows.length > 0);
          assert.deepEqual(
            cbor.body,
            rows.map((r) => ({ label: r.key, cbor_metadata: `\\x${r.cbor}`, metadata: r.cbor })),
          );
          const labels = (await f.bf(`/txs/${hash}/metadata`, network)).body.map((m: Json) => m.label);
          assert.deepEqual(cbor.body.map((m: Json) => m.label), labels);
          assert.equal((await f.bf(`/txs/${"0".repeat(64)}/metadata/cbor`, network)).status, 404);
          // a transaction without metadata: an empty list, not a 404
          const [plain] = await f.query<{ hash: string }>(
            network,
            `select encode(t.hash, 'hex') as hash from tx t
             where not exists (select 1 from tx_metadata m where m.tx_id = t.id) order by t.id desc limit 1`,
          );
          const none = await f.bf(`/txs/${plain!.hash}/metadata/cbor`, network);
          assert.equal(none.status, 200, JSON.stringify(none.body));
          assertBlockfrostShape("GET", "/txs/{hash}/metadata/cbor", none);
          assert.deepEqual(none.body, []);
        });

        await t.step(`${network}: the flags clients read`, async () => {
          const refs = (await f.bf(`/txs/${cases["reference inputs"]}/utxos`, network)).body;
          assert.ok(refs.inputs.some((i: Json) => i.reference && !i.collateral));
          const failed = (await f.bf(`/txs/${cases["failed scripts"]}/utxos`, network)).body;
          assert.ok(failed.inputs.length > 0 && failed.inputs.every((i: Json) => i.collateral));
          const content = (await f.bf(`/txs/${cases["failed scripts"]}`, network)).body;
          assert.equal(content.valid_contract, false);
          const script = (await f.bf(`/txs/${cases["a reference script output"]}/utxos`, network)).body;
          assert.ok(script.outputs.some((o: Json) => /^[0-9a-f]{56}$/.test(o.reference_script_hash ?? "")));
          const upper = await f.bf(`/txs/${cases.tokens!.toUpperCase()}`, network);
          assert.equal(upper.status, 200);
          assert.equal(upper.body.hash, cases.tokens);
        });

        await t.step(
          `${network}: Lucid Evolution's provider reads outputs by reference from /utxos`,
          async () => {
            const lucid = new Blockfrost(f.baseUrl(network), f.key);
            for (const name of ["tokens", "an inline datum", "a reference script output"]) {
              const hash = cases[name]!;
              const outputs = (await f.bf(`/txs/${hash}/utxos`, network)).body.outputs;
              const refs = outputs.map((o: Json) => ({ txHash: hash, outputIndex: o.output_index }));
              const read = await lucid.getUtxosByOutRef(refs);
              const unspent = outputs.filter((o: Json) => !o.consumed_by_tx);
              assert.deepEqual(
                read.map((u) => ({
                  outputIndex: u.outputIndex,
                  address: u.address,
                  assets: u.assets,
                  datum: u.datum ?? null,
                  script: u.scriptRef !== undefined && u.scriptRef !== null,
                })),
                unspent.map((o: Json) => ({
                  outputIndex: o.output_index,
                  address: o.address,
                  assets: Object.fromEntries(o.amount.map((a: Json) => [a.unit, BigInt(a.quantity)])),
                  datum: o.inline_datum,
                  script: o.reference_script_hash !== null,
                })),
                name,
              );
            }
          },
        );

        await t.step(`${network}: CBOR db-sync did not keep, unknown and malformed hashes`, async () => {
          const cbor = await f.bf(`/txs/${cases.tokens}/cbor`, network);
          assert.equal(cbor.status, 404);
          assertBlockfrostShape("GET", "/txs/{hash}/cbor", cbor);
          assert.match(cbor.body.message, /tx_cbor/);
          for (const leaf of endpoints) {
            const template = `/txs/{hash}${leaf}`;
            const unknown = await f.bf(`/txs/${"00".repeat(32)}${leaf}`, network);
            assert.equal(unknown.status, 404, `${leaf} unknown`);
            assertBlockfrostShape("GET", template, unknown);
            for (const bad of ["xyz", "ab".repeat(33), "zz".repeat(32)]) {
              const malformed = await f.bf(`/txs/${bad}${leaf}`, network);
              assert.equal(malformed.status, 400, `${leaf} ${bad}`);
              assertBlockfrostShape("GET", template, malformed);
              assert.match(malformed.body.message, /hash/);
            }
          }
        });
      }
    } finally {
      await f.close();
    }
  },
});
