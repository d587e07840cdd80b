/**
 * Datum and script rules of Plutus spends, each with a deliberately broken transaction (the UTxO set and the
 * mempool unchanged after the refusal) and the good variant accepted: a V1/V2-locked output without a datum is
 * unspendable (3114) while V3 needs none; witness datums must be needed by an input or named by a new output or
 * a reference input (3112); Plutus scripts in the witnesses or in new outputs must deserialise for their
 * language (3116). A far validity upper bound is accepted: Conway measures time past the forecast horizon
 * linearly from the current slot, so OutsideForecast (3130) cannot happen.
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { Effect } from "effect";
import { demoNetworks } from "@src/demo_chain/network_params.ts";
import { buildTx, openDevnet, payTo, type Utxo, walletUtxos } from "../support/devnet_tx.ts";
import { expectAccepted, expectRejection } from "../support/devnet_rejection.ts";

const ada = 1_000_000n;
/** The demo chain's always-succeeds scripts: V2 (three arguments), V3 (one, version 1.1.0). */
const v2 = CML.Script.new_plutus_v2(CML.PlutusV2Script.from_cbor_hex("4e4d01000033222220051200120011"));
const v3 = CML.Script.new_plutus_v3(CML.PlutusV3Script.from_cbor_hex("46450101002499"));
const unitData = () => CML.PlutusData.from_cbor_hex("d87980");
const otherData = () => CML.PlutusData.from_cbor_hex("d87a80");
const sameInput = (a: CML.TransactionInput, b: CML.TransactionInput) =>
  a.transaction_id().to_hex() === b.transaction_id().to_hex() && a.index() === b.index();

interface SpendOptions {
  readonly locked: Utxo;
  readonly script: CML.Script;
  readonly fuel: Utxo;
  readonly datums?: ReadonlyArray<CML.PlutusData>;
  readonly outputs?: ReadonlyArray<CML.TransactionOutput>;
  /** More Plutus V2 scripts in the witness set. */
  readonly extraScripts?: ReadonlyArray<CML.PlutusV2Script>;
  readonly ttl?: bigint;
}

Deno.test("devnet datum and script rules of Plutus spends", async (t) => {
  const f = await openDevnet("devnet_datum_rules");
  const alice = f.keys[0]!;
  try {
    const [fuel, , , collateral] = await walletUtxos(f, alice.address);
    const addressOf = (s: CML.Script) =>
      CML.EnterpriseAddress.new(1, CML.Credential.new_script(s.hash())).to_address();
    const lockAt = (s: CML.Script, datum?: CML.DatumOption) =>
      CML.TransactionOutput.new(addressOf(s), CML.Value.from_coin(20n * ada), datum);
    const setup = buildTx(f.params, {
      inputs: [fuel!],
      outputs: [
        lockAt(v2), // no datum
        lockAt(v3), // no datum
        lockAt(v2, CML.DatumOption.new_hash(CML.hash_plutus_data(unitData()))),
        lockAt(v2, CML.DatumOption.new_datum(unitData())),
        ...Array.from({ length: 6 }, () => payTo(alice.address, 100n * ada)),
      ],
      signers: [alice.privateKey],
    });
    const setupId = CML.hash_transaction(setup.body());
    await expectAccepted(f, setup);
    await Effect.runPromise(f.devnet.produceBlock);
    const at = (i: number): Utxo => ({
      input: CML.TransactionInput.new(setupId, BigInt(i)),
      output: setup.body().outputs().get(i),
    });
    const [v2NoDatum, v3NoDatum, v2DatumHash, v2Inline] = [at(0), at(1), at(2), at(3)];
    const fuels = [4, 5, 6, 7, 8, 9].map(at);

    const spend = (o: SpendOptions) => {
      const sorted = [o.locked, o.fuel].map((u) => u.input).sort((a, b) =>
        a.transaction_id().to_hex() < b.transaction_id().to_hex() ? -1 : 1
      );
      const index = BigInt(sorted.findIndex((i) => sameInput(i, o.locked.input)));
      const redeemers = () => {
        const list = CML.LegacyRedeemerList.new();
        list.add(
          CML.LegacyRedeemer.new(
            CML.RedeemerTag.Spend,
            index,
            unitData(),
            CML.ExUnits.new(1_000_000n, 500_000_000n),
          ),
        );
        return CML.Redeemers.new_arr_legacy_redeemer(list);
      };
      const datums = () => {
        const list = CML.PlutusDataList.new();
        for (const d of o.datums ?? []) list.add(CML.PlutusData.from_cbor_bytes(d.to_cbor_bytes()));
        return list;
      };
      const languages = CML.LanguageList.new();
      languages.add(o.script.language()!);
      const integrity = CML.calc_script_data_hash(redeemers(), datums(), f.params.costModels, languages)!;
      return buildTx(f.params, {
        inputs: [o.locked, o.fuel],
        outputs: o.outputs ?? [],
        changeAddress: CML.Address.from_bech32(alice.address),
        signers: [alice.privateKey],
        extraFee: 100_000n,
        body: (body) => {
          body.set_script_data_hash(integrity);
          const c = CML.TransactionInputList.new();
          c.add(collateral!.input);
          body.set_collateral_inputs(c);
          if (o.ttl !== undefined) body.set_ttl(o.ttl);
        },
        witnesses: (set) => {
          const v2s = CML.PlutusV2ScriptList.new();
          const main = o.script.as_plutus_v2();
          if (main) v2s.add(main);
          for (const s of o.extraScripts ?? []) v2s.add(s);
          if (v2s.len() > 0) set.set_plutus_v2_scripts(v2s);
          const v3s = CML.PlutusV3ScriptList.new();
          const v3main = o.script.as_plutus_v3();
          if (v3main) {
            v3s.add(v3main);
            set.set_plutus_v3_scripts(v3s);
          }
          if ((o.datums ?? []).length > 0) set.set_plutus_datums(datums());
          set.set_redeemers(redeemers());
        },
      });
    };

    await t.step("a V2-locked output without a datum is 3114 OrphanScriptInputs", async () => {
      const error = await expectRejection(f, spend({ locked: v2NoDatum, script: v2, fuel: fuels[0]! }), 3114);
      assert.deepEqual(error.data, {
        orphanScriptInputs: [{ transaction: { id: setupId.to_hex() }, index: 0 }],
      });
    });

    await t.step("a V3-locked output without a datum is spent (no datum needed since V3)", async () => {
      await expectAccepted(f, spend({ locked: v3NoDatum, script: v3, fuel: fuels[0]! }));
    });

    await t.step("a witness datum no input needs and no output names is 3112 ExtraneousDatums", async () => {
      const tx = spend({
        locked: v2DatumHash,
        script: v2,
        fuel: fuels[1]!,
        datums: [unitData(), otherData()],
      });
      const error = await expectRejection(f, tx, 3112);
      assert.deepEqual(error.data, { extraneousDatums: [CML.hash_plutus_data(otherData()).to_hex()] });
      // and without the datum the input needs, 3111
      const missing = spend({ locked: v2DatumHash, script: v2, fuel: fuels[1]!, datums: [] });
      await expectRejection(f, missing, 3111);
    });

    await t.step("the same datum is allowed when a new output carries its hash", async () => {
      const named = CML.TransactionOutput.new(
        CML.Address.from_bech32(alice.address),
        CML.Value.from_coin(3n * ada),
        CML.DatumOption.new_hash(CML.hash_plutus_data(otherData())),
      );
      await expectAccepted(
        f,
        spend({
          locked: v2DatumHash,
          script: v2,
          fuel: fuels[1]!,
          datums: [unitData(), otherData()],
          outputs: [named],
        }),
      );
    });

    const garbage = CML.PlutusV2Script.from_raw_bytes(new Uint8Array([0x43, 0x01, 0x02, 0x03]));
    // cardano-cli's classic mistake: the script's CBOR wrapped once more
    const doubleWrapped = CML.PlutusV2Script.from_raw_bytes(v2.as_plutus_v2()!.to_cbor_bytes());

    await t.step("a witness script that does not deserialise is 3116 MalformedScripts", async () => {
      for (const bad of [garbage, doubleWrapped]) {
        const tx = spend({ locked: v2Inline, script: v2, fuel: fuels[2]!, extraScripts: [bad] });
        const error = await expectRejection(f, tx, 3116);
        assert.deepEqual(error.data, { malformedScripts: [bad.hash().to_hex()] });
      }
    });

    /** A payment whose first output carries `script` as its reference script. */
    const carrying = (script: CML.Script, fuelIndex: number) =>
      buildTx(f.params, {
        inputs: [fuels[fuelIndex]!],
        outputs: [CML.TransactionOutput.new(
          CML.Address.from_bech32(alice.address),
          CML.Value.from_coin(5n * ada),
          undefined,
          script,
        )],
        signers: [alice.privateKey],
      });

    await t.step(
      "so is a new output's reference script; the language decides (builtins, trailing bytes)",
      async () => {
        const error = await expectRejection(f, carrying(CML.Script.new_plutus_v2(garbage), 3), 3116);
        assert.deepEqual(error.data, { malformedScripts: [garbage.hash().to_hex()] });
        // (program 1.0.0 (builtin keccak_256)): a V3 builtin, not a V2 one
        const keccak = CML.PlutusV2Script.from_cbor_hex("464501000078e1");
        await expectRejection(f, carrying(CML.Script.new_plutus_v2(keccak), 3), 3116);
        await expectAccepted(
          f,
          carrying(CML.Script.new_plutus_v3(CML.PlutusV3Script.from_raw_bytes(keccak.to_raw_bytes())), 3),
        );
        // bytes after the CBOR: ignored for V1/V2, refused for V3
        const trailing = new Uint8Array([...v3.as_plutus_v3()!.to_raw_bytes(), 0x00]);
        await expectRejection(
          f,
          carrying(CML.Script.new_plutus_v3(CML.PlutusV3Script.from_raw_bytes(trailing)), 4),
          3116,
        );
        const v2Trailing = new Uint8Array([...v2.as_plutus_v2()!.to_raw_bytes(), 0x00]);
        await expectAccepted(
          f,
          carrying(CML.Script.new_plutus_v2(CML.PlutusV2Script.from_raw_bytes(v2Trailing)), 4),
        );
      },
    );

    await t.step(
      "a Plutus spend valid until 30 days from now is accepted and runs (no 3130 in Conway)",
      async () => {
        const slotNow = Math.floor((Date.now() - demoNetworks.mainnet.systemStart.getTime()) / 1000);
        const far = BigInt(slotNow + 30 * 86_400);
        const id = await expectAccepted(
          f,
          spend({ locked: v2Inline, script: v2, fuel: fuels[5]!, ttl: far }),
        );
        const block = await Effect.runPromise(f.devnet.produceBlock);
        assert.ok(block.txIds.includes(id));
        // with the V3 spend without datum and the one with a supplemental datum: all ran and succeeded
        const rows = await Effect.runPromise(f.chain.sql<{ valid: boolean; redeemers: string }>`
          select t.valid_contract as valid, (select count(*)::text from redeemer r where r.tx_id = t.id) as redeemers
          from tx t join block b on b.id = t.block_id where b.block_no = ${block.blockNo}`);
        assert.equal(rows.length, 5);
        assert.equal(rows.filter((r) => r.redeemers === "1").length, 3);
        assert.ok(rows.every((r) => r.valid));
      },
    );
  } finally {
    await f.close();
  }
});
