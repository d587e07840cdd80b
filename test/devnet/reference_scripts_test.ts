/**
 * Reference scripts as the Conway ledger counts and prices them: each script by its own bytes (14 for the demo
 * chain's always-succeeds PlutusV2 script, the CBOR of a native script), the fee exactly the ledger's minimum
 * (the transaction's size without its validity flag, execution prices, then 15 lovelace per byte growing by 1.2
 * every 25,600 bytes, floored) so a transaction at that fee is accepted and one lovelace less is 3122; a
 * CSL-built spend through a reference script at CSL's own fee is accepted; over 204,800 bytes is 3166.
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { Effect } from "effect";
import { toOgmiosProtocolParameters } from "@src/domain/protocol_parameters.ts";
import { big, cslConfig, cslCostModels } from "../../scripts/devnet_example.ts";
import { buildTx, openDevnet, payTo, type Utxo, walletUtxos } from "../support/devnet_tx.ts";
import { expectAccepted, expectRejection } from "../support/devnet_rejection.ts";
import { bulkyNativeScript, createReferenceScriptOutputs } from "../support/reference_script_outputs.ts";

const ada = 1_000_000n;
const alwaysSucceedsHex = "4e4d01000033222220051200120011";
const unitData = () => CML.PlutusData.from_cbor_hex("d87980");

/**
 * The ledger's reference-script fee at 15 lovelace per byte, worked out here independently: tier k costs
 * 15 × 1.2^k per byte, so over a common denominator 5^tiers every term is 15 × 6^k × 5^(tiers − k).
 */
const tieredFee = (size: number): bigint => {
  const tiers = Math.floor(size / 25_600);
  const rest = BigInt(size - tiers * 25_600);
  let sum = 0n;
  for (let k = 0; k < tiers; k++) sum += 25_600n * 15n * 6n ** BigInt(k) * 5n ** BigInt(tiers - k);
  sum += rest * 15n * 6n ** BigInt(tiers);
  return sum / 5n ** BigInt(tiers);
};

/** The same transaction with another fee, the difference going to its last output, signed again by `signer`. */
const withFee = (tx: CML.Transaction, fee: bigint, signer: CML.PrivateKey): CML.Transaction => {
  const old = tx.body();
  const outputs = CML.TransactionOutputList.new();
  const last = old.outputs().len() - 1;
  for (let i = 0; i <= last; i++) {
    const o = old.outputs().get(i);
    outputs.add(
      i < last ? o : CML.TransactionOutput.new(
        o.address(),
        CML.Value.new(o.amount().coin() + old.fee() - fee, o.amount().multi_asset()),
      ),
    );
  }
  const body = CML.TransactionBody.new(old.inputs(), outputs, fee);
  body.set_collateral_inputs(old.collateral_inputs()!);
  body.set_collateral_return(old.collateral_return()!);
  body.set_total_collateral(old.total_collateral()!);
  body.set_reference_inputs(old.reference_inputs()!);
  body.set_script_data_hash(old.script_data_hash()!);
  const witnesses = tx.witness_set();
  const vkeys = CML.VkeywitnessList.new();
  vkeys.add(CML.make_vkey_witness(CML.hash_transaction(body), signer));
  witnesses.set_vkeywitnesses(vkeys);
  return CML.Transaction.new(body, witnesses, true);
};

/** 44 per byte (the validity flag's byte is not charged) plus 155,381, as the demo chain's parameters say. */
const linearFee = (tx: CML.Transaction) => 44n * BigInt(tx.to_cbor_bytes().length - 1) + 155_381n;

Deno.test("devnet reference scripts: sizes, tiered fees, 3122 at one lovelace under, 3166", async (t) => {
  const f = await openDevnet("devnet_refscripts");
  const [alice, bob] = [f.keys[0]!, f.keys[1]!];
  try {
    const aliceUtxos = await walletUtxos(f, alice.address);
    const bobUtxos = await walletUtxos(f, bob.address);
    const v2 = CML.PlutusV2Script.from_cbor_hex(alwaysSucceedsHex);
    const scriptAddress = CML.EnterpriseAddress.new(1, CML.Credential.new_script(v2.hash())).to_address();
    const bulky = bulkyNativeScript(450);

    // a V2 reference script, two outputs locked by it (inline datum), and 15 bulky native reference scripts
    const carrier = CML.TransactionOutput.new(
      CML.Address.from_bech32(alice.address),
      CML.Value.from_coin(2n * ada),
      undefined,
      CML.Script.new_plutus_v2(v2),
    );
    const lockedOutput = CML.TransactionOutput.new(
      scriptAddress,
      CML.Value.from_coin(20n * ada),
      CML.DatumOption.new_datum(unitData()),
    );
    const setup = buildTx(f.params, {
      inputs: [aliceUtxos[0]!],
      outputs: [carrier, lockedOutput],
      signers: [alice.privateKey],
    });
    const setupId = CML.hash_transaction(setup.body());
    await expectAccepted(f, setup);
    const at = (index: number): Utxo => ({
      input: CML.TransactionInput.new(setupId, BigInt(index)),
      output: setup.body().outputs().get(index),
    });
    const [v2Reference, locked] = [at(0), at(1)];
    const big15 = await createReferenceScriptOutputs(f, alice, aliceUtxos[1]!, bulky, 15);
    const bulkySize = bulky.to_cbor_bytes().length;
    let fuel = bobUtxos.slice(0, 3);

    /** A payment from bob's next fuel output reading the given reference inputs, at a fixed fee. */
    const payment = (references: ReadonlyArray<Utxo>, fee: bigint) =>
      buildTx(f.params, {
        inputs: [fuel[0]!],
        outputs: [payTo(alice.address, 5n * ada)],
        signers: [bob.privateKey],
        fee,
        body: (b) => {
          const list = CML.TransactionInputList.new();
          for (const r of references) list.add(r.input);
          b.set_reference_inputs(list);
        },
      });
    /** At the minimum minus one: 3122 naming exactly `minimum`; at the minimum: accepted. */
    const atTheMinimum = async (
      build: (fee: bigint) => CML.Transaction,
      minimum: (tx: CML.Transaction) => bigint,
    ) => {
      const expected = minimum(build(1_000_000n));
      const under = build(expected - 1n);
      assert.equal(minimum(under), expected, "the fee's value does not change the size");
      const error = await expectRejection(f, under, 3122);
      assert.deepEqual(error.data, {
        minimumRequiredFee: { ada: { lovelace: expected } },
        providedFee: { ada: { lovelace: expected - 1n } },
      });
      return { expected, id: await expectAccepted(f, build(expected)) };
    };

    await t.step(
      "each script counts its own bytes: 14 for the V2 script, the native script's CBOR",
      async () => {
        assert.equal(v2.to_raw_bytes().length, 14);
        assert.equal(CML.Script.new_plutus_v2(v2).to_cbor_bytes().length, 17, "not the [2, bytes] wrapper");
        assert.equal(bulkySize, 14_405);
        // a payment reading the V2 reference script pays 14 × 15 = 210 lovelace for it, not 17 × 15
        const { expected } = await atTheMinimum(
          (fee) => payment([v2Reference], fee),
          (tx) => linearFee(tx) + 210n,
        );
        assert.ok(expected > 0n);
        fuel = fuel.slice(1);
      },
    );

    await t.step("two 14,405-byte scripts cross the first tier: 25,600 × 15 + 3,210 × 18", async () => {
      const references = big15.outputs.slice(0, 2);
      await atTheMinimum(
        (fee) => payment(references, fee),
        (tx) => linearFee(tx) + 25_600n * 15n + 3_210n * 18n,
      );
      fuel = fuel.slice(1);
    });

    await t.step(
      "fourteen (201,670 bytes) pay seven full tiers and the eighth's rest; CML rounds up",
      async () => {
        const references = big15.outputs.slice(0, 14);
        assert.equal(14 * bulkySize, 201_670);
        const unreferenced = payment([], 1_000_000n);
        await atTheMinimum((fee) => payment(references, fee), (tx) => linearFee(tx) + tieredFee(201_670));
        fuel = fuel.slice(1);
        // at 204,800 bytes (eight full tiers) the ledger's exact sum is 6,335,648.56…: floored, CML says 6,335,649
        assert.equal(tieredFee(204_800), 6_335_648n);
        assert.equal(
          CML.min_fee(unreferenced, f.params.linearFee, f.params.prices, 204_800n) -
            CML.min_fee(unreferenced, f.params.linearFee, f.params.prices, 0n),
          6_335_649n,
        );
      },
    );

    await t.step("fifteen (216,075 bytes) are 3166 ReferenceScriptsTooLarge", async () => {
      const tx = buildTx(f.params, {
        inputs: [bobUtxos[3]!],
        outputs: [payTo(alice.address, 5n * ada)],
        signers: [bob.privateKey],
        fee: 8n * ada,
        body: (b) => {
          const list = CML.TransactionInputList.new();
          for (const r of big15.outputs) list.add(r.input);
          b.set_reference_inputs(list);
        },
      });
      const error = await expectRejection(f, tx, 3166);
      assert.deepEqual(error.data, {
        measuredReferenceScriptsSize: { bytes: 15 * bulkySize },
        maximumReferenceScriptsSize: { bytes: 204_800 },
      });
    });

    await t.step(
      "a CSL spend through the reference script: at CSL's fee (the ledger's minimum + 220) accepted",
      async () => {
        await Effect.runPromise(f.devnet.produceBlock);
        const pp = toOgmiosProtocolParameters(f.params.row);
        const key = CSL.PrivateKey.from_bech32(f.devnet.wallets[2]!.signingKey);
        const wallet = CSL.Address.from_bech32(f.devnet.wallets[2]!.address);
        const [walletFuel, walletCollateral] = await walletUtxos(f, f.devnet.wallets[2]!.address);
        const script = CSL.PlutusScript.from_hex_with_version(
          alwaysSucceedsHex,
          CSL.Language.new_plutus_v2(),
        );
        assert.equal(script.bytes().length, 14, "CSL's script bytes are the ledger's");
        const cslInput = (u: Utxo) => CSL.TransactionInput.from_bytes(u.input.to_cbor_bytes());
        const units = { mem: 1_000_000n, steps: 500_000_000n };
        /** The spend of the locked output, CSL computing the fee. */
        const spend = () => {
          const builder = CSL.TransactionBuilder.new(cslConfig(pp));
          const inputs = CSL.TxInputsBuilder.new();
          inputs.add_plutus_script_input(
            CSL.PlutusWitness.new_with_ref_without_datum(
              CSL.PlutusScriptSource.new_ref_input(
                script.hash(),
                cslInput(v2Reference),
                CSL.Language.new_plutus_v2(),
                script.bytes().length,
              ),
              CSL.Redeemer.new(
                CSL.RedeemerTag.new_spend(),
                big(0),
                CSL.PlutusData.from_hex("d87980"),
                CSL.ExUnits.new(big(units.mem), big(units.steps)),
              ),
            ),
            cslInput(locked),
            CSL.Value.new(big(20n * ada)),
          );
          inputs.add_regular_input(
            wallet,
            cslInput(walletFuel!),
            CSL.Value.new(big(walletFuel!.output.amount().coin())),
          );
          builder.set_inputs(inputs);
          const collateral = CSL.TxInputsBuilder.new();
          collateral.add_regular_input(
            wallet,
            cslInput(walletCollateral!),
            CSL.Value.new(big(walletCollateral!.output.amount().coin())),
          );
          builder.set_collateral(collateral);
          builder.set_total_collateral_and_return(big(5n * ada), wallet);
          builder.calc_script_data_hash(cslCostModels(pp));
          builder.add_change_if_needed(wallet);
          const fixed = CSL.FixedTransaction.from_bytes(builder.build_tx().to_bytes());
          fixed.sign_and_add_vkey_signature(key);
          return { hex: fixed.to_hex(), fee: BigInt(builder.get_fee_if_set()!.to_str()) };
        };
        const cslBuilt = spend();
        const tx = CML.Transaction.from_cbor_hex(cslBuilt.hex);
        // the ledger's minimum: size without the validity flag, one ceiling over both prices, 14 × 15
        const scriptFee = (units.mem * 577n * 1_000n + units.steps * 721n + 9_999_999n) / 10_000_000n;
        const minimum = linearFee(tx) + scriptFee + 210n;
        // CSL's fee is above the ledger's: min_fee counts the validity flag's byte (44) and its builder's
        // size estimate is 4 bytes over the signed transaction (176); the node asks for the minimum only
        const cslMinFee = BigInt(
          CSL.min_fee(CSL.Transaction.from_hex(cslBuilt.hex), CSL.LinearFee.new(big(44), big(155_381)))
            .to_str(),
        );
        assert.equal(cslMinFee, linearFee(tx) + 44n);
        assert.equal(cslBuilt.fee, minimum + 44n + 176n);
        // CSL refuses to build under its own minimum: the same transaction, re-signed with less fee (and more change)
        const under = withFee(tx, minimum - 1n, CML.PrivateKey.from_bech32(f.devnet.wallets[2]!.signingKey));
        assert.equal(linearFee(under), linearFee(tx));
        const error = await expectRejection(f, under, 3122);
        assert.deepEqual(error.data, {
          minimumRequiredFee: { ada: { lovelace: minimum } },
          providedFee: { ada: { lovelace: minimum - 1n } },
        });
        const id = await expectAccepted(f, cslBuilt.hex);
        const block = await Effect.runPromise(f.devnet.produceBlock);
        assert.deepEqual(block.txIds, [id]);
      },
    );
  } finally {
    await f.close();
  }
});
