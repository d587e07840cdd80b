/**
 * A mempool bigger than a block spills over into the next blocks in submission order, as a node's forge takes
 * the longest prefix that fits, never dropping a transaction nor writing an oversized block: by bytes (the
 * ledger size + 4 per transaction, within the maximum block body size less 1,024), by execution units (within
 * maxBlockExUnits: 20 billion steps) and by reference scripts (within 1 MiB per block).
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { Effect } from "effect";
import type { WrittenBlock } from "@src/devnet/blocks/block_writer.ts";
import { buildTx, openDevnet, payTo, type Utxo, walletUtxos } from "../support/devnet_tx.ts";
import { expectAccepted } from "../support/devnet_rejection.ts";
import { bulkyNativeScript, createReferenceScriptOutputs } from "../support/reference_script_outputs.ts";

const ada = 1_000_000n;
const v2 = CML.PlutusV2Script.from_cbor_hex("4e4d01000033222220051200120011");
const unitData = () => CML.PlutusData.from_cbor_hex("d87980");

Deno.test("devnet blocks: a mempool bigger than a block spills over, in order", async (t) => {
  const f = await openDevnet("devnet_block_limits");
  const [alice, bob, carol] = [f.keys[0]!, f.keys[1]!, f.keys[2]!];
  const capacityBytes = f.params.row.maxBlockSize - 1_024;
  const produce = () => Effect.runPromise(f.devnet.produceBlock);
  /** Blocks until the mempool is empty (never more than `limit`). */
  const drain = async (limit: number) => {
    const blocks: Array<WrittenBlock> = [];
    while (f.devnet.mempool().length > 0) {
      assert.ok(blocks.length < limit, "the mempool drains");
      blocks.push(await produce());
    }
    return blocks;
  };
  const sizes = async (ids: ReadonlyArray<string>) => {
    const rows = await Effect.runPromise(f.chain.sql<{ hash: string; size: number }>`
      select encode(hash, 'hex') as hash, size from tx
      where hash in ${f.chain.sql.in(ids.map((id) => CML.TransactionHash.from_hex(id).to_raw_bytes()))}`);
    return new Map(rows.map((r) => [r.hash, Number(r.size)]));
  };
  try {
    const [aliceFuel] = await walletUtxos(f, alice.address);
    const bulky = bulkyNativeScript(460);
    let references: ReadonlyArray<Utxo> = [];

    await t.step(
      "bytes: thirteen 14,973-byte transactions take three blocks (5, 5, 3), each as full as it can be",
      async () => {
        const made = await createReferenceScriptOutputs(f, alice, aliceFuel!, bulky, 13);
        references = made.outputs;
        assert.deepEqual(made.blocks.flatMap((b) => b.txIds), made.txIds, "all of them, in submission order");
        const measured = await sizes(made.txIds);
        // the measure of each: the ledger's size (without the validity flag's byte: db-sync's tx.size) + 4
        const measure = (id: string) => measured.get(id)! + 4;
        let next = 0;
        for (const block of made.blocks) {
          const used = block.txIds.reduce((s, id) => s + measure(id), 0);
          assert.ok(used <= capacityBytes, `block ${block.blockNo}: ${used} bytes`);
          next += block.txIds.length;
          const following = made.txIds[next];
          if (following) assert.ok(used + measure(following) > capacityBytes, "the next one did not fit");
        }
        // 14,973 bytes submitted, 14,972 by the ledger: six would fit in the whole body (90,112) but not in the
        // forge's 89,088
        assert.ok(made.txIds.every((id) => measured.get(id) === 14_972));
        assert.deepEqual(made.blocks.map((b) => b.txIds.length), [5, 5, 3]);
      },
    );

    await t.step(
      "reference scripts: six transactions of 191,425 bytes each, five per 1 MiB block",
      async () => {
        assert.equal(13 * bulky.to_cbor_bytes().length, 191_425);
        const [bobFuel] = await walletUtxos(f, bob.address);
        const fanOut = buildTx(f.params, {
          inputs: [bobFuel!],
          outputs: Array.from({ length: 6 }, () => payTo(bob.address, 100n * ada)),
          signers: [bob.privateKey],
        });
        await expectAccepted(f, fanOut);
        await produce();
        const fanOutId = CML.hash_transaction(fanOut.body());
        const ids: Array<string> = [];
        for (let i = 0; i < 6; i++) {
          const tx = buildTx(f.params, {
            inputs: [{
              input: CML.TransactionInput.new(fanOutId, BigInt(i)),
              output: fanOut.body().outputs().get(i),
            }],
            outputs: [payTo(alice.address, 2n * ada)],
            signers: [bob.privateKey],
            referenceScriptSize: 191_425n,
            body: (b) => {
              const list = CML.TransactionInputList.new();
              for (const r of references) list.add(r.input);
              b.set_reference_inputs(list);
            },
          });
          ids.push(await expectAccepted(f, tx));
        }
        const blocks = await drain(3);
        assert.deepEqual(blocks.map((b) => b.txIds), [ids.slice(0, 5), ids.slice(5)]);
      },
    );

    await t.step("execution units: three spends declaring 7 billion steps each, two per block", async () => {
      const [carolFuel, , , collateral] = await walletUtxos(f, carol.address);
      const scriptAddress = CML.EnterpriseAddress.new(1, CML.Credential.new_script(v2.hash())).to_address();
      const lock = buildTx(f.params, {
        inputs: [carolFuel!],
        outputs: [
          ...Array.from(
            { length: 3 },
            () =>
              CML.TransactionOutput.new(
                scriptAddress,
                CML.Value.from_coin(20n * ada),
                CML.DatumOption.new_datum(unitData()),
              ),
          ),
          ...Array.from({ length: 3 }, () => payTo(carol.address, 100n * ada)),
        ],
        signers: [carol.privateKey],
      });
      await expectAccepted(f, lock);
      await produce();
      const lockId = CML.hash_transaction(lock.body());
      const at = (i: number): Utxo => ({
        input: CML.TransactionInput.new(lockId, BigInt(i)),
        output: lock.body().outputs().get(i),
      });
      const units = CML.ExUnits.new(1_000_000n, 7_000_000_000n);
      const languages = CML.LanguageList.new();
      languages.add(CML.Language.PlutusV2);
      const ids: Array<string> = [];
      for (let i = 0; i < 3; i++) {
        const [locked, fuel] = [at(i), at(3 + i)];
        // the locked output sorts first: same transaction, lower index
        const redeemers = () => {
          const list = CML.LegacyRedeemerList.new();
          list.add(CML.LegacyRedeemer.new(CML.RedeemerTag.Spend, 0n, unitData(), units));
          return CML.Redeemers.new_arr_legacy_redeemer(list);
        };
        const tx = buildTx(f.params, {
          inputs: [locked, fuel],
          outputs: [],
          changeAddress: CML.Address.from_bech32(carol.address),
          signers: [carol.privateKey],
          extraFee: (1_000_000n * 577n) / 10_000n + (7_000_000_000n * 721n) / 10_000_000n + 2n,
          body: (b) => {
            b.set_script_data_hash(
              CML.calc_script_data_hash(
                redeemers(),
                CML.PlutusDataList.new(),
                f.params.costModels,
                languages,
              )!,
            );
            const c = CML.TransactionInputList.new();
            c.add(collateral!.input);
            b.set_collateral_inputs(c);
          },
          witnesses: (set) => {
            const scripts = CML.PlutusV2ScriptList.new();
            scripts.add(v2);
            set.set_plutus_v2_scripts(scripts);
            set.set_redeemers(redeemers());
          },
        });
        ids.push(await expectAccepted(f, tx));
      }
      const blocks = await drain(3);
      assert.deepEqual(blocks.map((b) => b.txIds), [ids.slice(0, 2), ids.slice(2)]);
      const [steps] = await Effect.runPromise(f.chain.sql<{ steps: string }>`
        select max(s)::text as steps from (
          select sum(r.unit_steps) as s from redeemer r join tx on tx.id = r.tx_id
          where tx.block_id in ${f.chain.sql.in(blocks.map((b) => b.id))} group by tx.block_id) per_block`);
      assert.equal(steps?.steps, "14000000000", "no block over 20 billion steps");
    });
  } finally {
    await f.close();
  }
});
