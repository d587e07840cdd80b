/**
 * A Plutus script spend on the devnet end to end, as a dApp does it with CSL and the official client: lock ada
 * at an always-succeeds PlutusV2 validator with an inline datum; build the spend with placeholder budgets,
 * evaluateTransaction, rebuild with the budgets it gave, the script data hash over the ledger's cost models and
 * collateral with a return; submit, poll tx-status. The explorer, GraphQL (redeemer, collateral_tx_in) and chain
 * sync show the redeemer and collateral, and the locked output is gone from the UTxO set. Then a Plutus V1
 * spend with the datum in the witness set: a body committing to another cost model is 3113 and spends nothing;
 * the right one lands.
 */
import assert from "node:assert/strict";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { big } from "../../scripts/devnet_example.ts";
import { type Json, type OgmiosUtxo, openDevnetService } from "../support/devnet_service.ts";
import { testDatabaseUrl } from "../support/databases.ts";

/** The always-succeeds PlutusV2 validator the demo chain uses (CBOR of its flat bytes), and unit data. */
const alwaysSucceeds = CSL.PlutusScript.from_hex_with_version(
  "4e4d01000033222220051200120011",
  CSL.Language.new_plutus_v2(),
);
const unit = () => CSL.PlutusData.from_hex("d87980");

const inputOf = (u: OgmiosUtxo) =>
  CSL.TransactionInput.new(CSL.TransactionHash.from_hex(u.transaction.id), u.index);

Deno.test({
  name: "devnet end to end: Plutus V2 and V1 spends built with CSL, evaluated, then submitted",
  // the devnet runs on the embedded demo chain (the PostgreSQL run serves db-sync databases)
  ignore: testDatabaseUrl !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const s = await openDevnetService("devnet_e2e_plutus");
    try {
      const [wallet] = s.wallets;
      const key = CSL.PrivateKey.from_bech32(wallet!.signingKey);
      const walletAddress = CSL.Address.from_bech32(wallet!.address);
      const scriptAddress = CSL.EnterpriseAddress.new(
        1,
        CSL.Credential.from_scripthash(alwaysSucceeds.hash()),
      )
        .to_address();
      const signed = (builder: CSL.TransactionBuilder) => {
        const tx = CSL.FixedTransaction.from_bytes(builder.build_tx().to_bytes());
        tx.sign_and_add_vkey_signature(key);
        return {
          cbor: tx.to_hex(),
          id: tx.transaction_hash().to_hex(),
          fee: builder.get_fee_if_set()!,
          scriptDataHash: tx.body().script_data_hash()?.to_hex(),
        };
      };
      const [fuel, collateral] = await s.utxosOf(wallet!.address);

      // lock 20 ada at the script with an inline unit datum
      const lockBuilder = CSL.TransactionBuilder.new(s.config);
      lockBuilder.add_regular_input(
        walletAddress,
        inputOf(fuel!),
        CSL.Value.new(big(fuel!.value.ada.lovelace)),
      );
      const locked = CSL.TransactionOutput.new(scriptAddress, CSL.Value.new(big(20_000_000)));
      locked.set_plutus_data(unit());
      lockBuilder.add_output(locked);
      lockBuilder.add_change_if_needed(walletAddress);
      const lock = signed(lockBuilder);
      assert.equal(await s.client.submitTransaction(lock.cbor), lock.id);
      await s.confirmed(lock.id);
      // the demo chain's own script outputs sit at the same address
      const lockedUtxo = (await s.utxosOf(scriptAddress.to_bech32())).find((u) =>
        u.transaction.id === lock.id
      );
      assert.equal(lockedUtxo?.value.ada.lovelace, 20_000_000);
      const change = (await s.utxosOf(wallet!.address)).find((u) => u.transaction.id === lock.id)!;

      interface Spend {
        readonly script: CSL.PlutusScript;
        readonly locked: OgmiosUtxo;
        readonly fuel: OgmiosUtxo;
        /** The datum, when the locked output carries only its hash (it goes in the witness set). */
        readonly datum?: CSL.PlutusData;
        /** The cost models the script data hash commits to (the ledger's unless a test breaks it). */
        readonly costModels?: CSL.Costmdls;
      }
      /** The spend of a locked output and a fuel output from the same transaction, with the given budget. */
      const spendFrom = (o: Spend, budget: { memory: number; cpu: number }) => {
        const builder = CSL.TransactionBuilder.new(s.config);
        const inputs = CSL.TxInputsBuilder.new();
        // both inputs come from one transaction and the locked one has the lower index: redeemer index 0
        const redeemer = CSL.Redeemer.new(
          CSL.RedeemerTag.new_spend(),
          big(0),
          unit(),
          CSL.ExUnits.new(big(budget.memory), big(budget.cpu)),
        );
        inputs.add_plutus_script_input(
          o.datum
            ? CSL.PlutusWitness.new(o.script, o.datum, redeemer)
            : CSL.PlutusWitness.new_without_datum(o.script, redeemer),
          inputOf(o.locked),
          CSL.Value.new(big(o.locked.value.ada.lovelace)),
        );
        inputs.add_regular_input(
          walletAddress,
          inputOf(o.fuel),
          CSL.Value.new(big(o.fuel.value.ada.lovelace)),
        );
        builder.set_inputs(inputs);
        const collateralInputs = CSL.TxInputsBuilder.new();
        collateralInputs.add_regular_input(
          walletAddress,
          inputOf(collateral!),
          CSL.Value.new(big(collateral!.value.ada.lovelace)),
        );
        builder.set_collateral(collateralInputs);
        builder.set_total_collateral_and_return(big(5_000_000), walletAddress);
        builder.calc_script_data_hash(o.costModels ?? s.costModels);
        builder.add_change_if_needed(walletAddress);
        return signed(builder);
      };
      const spend = (budget: { memory: number; cpu: number }) =>
        spendFrom({ script: alwaysSucceeds, locked: lockedUtxo!, fuel: change }, budget);
      await s.syncFromTip();
      let budget = { memory: 0, cpu: 0 };
      let tx = spend({ memory: 14_000_000, cpu: 10_000_000_000 });

      await t.step("evaluateTransaction gives the validator's budget", async () => {
        const [evaluation, ...more] = await s.client.evaluateTransaction(tx.cbor);
        assert.equal(more.length, 0);
        assert.deepEqual(evaluation!.validator, { purpose: "spend", index: 0 });
        budget = { memory: Number(evaluation!.budget.memory), cpu: Number(evaluation!.budget.cpu) };
        assert.ok(budget.memory > 0 && budget.cpu > 0, JSON.stringify(evaluation));
        assert.ok(budget.memory < 14_000_000 && budget.cpu < 10_000_000_000);
      });

      await t.step("rebuilt with those budgets: submitted, confirmed, the script fee is paid", async () => {
        const placeholderFee = BigInt(tx.fee.to_str());
        tx = spend(budget);
        assert.ok(
          BigInt(tx.fee.to_str()) < placeholderFee,
          "the evaluated budgets cost less than the placeholder",
        );
        assert.equal(await s.client.submitTransaction(tx.cbor), tx.id);
        assert.equal((await s.confirmed(tx.id)).fee, tx.fee.to_str());
      });

      await t.step("the locked output is spent; the collateral is untouched", async () => {
        const atScript = await s.utxosOf(scriptAddress.to_bech32());
        assert.ok(!atScript.some((u) => u.transaction.id === lock.id));
        const unspent = await s.utxosOf(wallet!.address);
        assert.ok(
          unspent.some((u) =>
            u.transaction.id === collateral!.transaction.id && u.index === collateral!.index
          ),
        );
        assert.ok(
          !unspent.some((u) => u.transaction.id === change.transaction.id && u.index === change.index),
        );
      });

      await t.step("the explorer shows a valid contract with its collateral", async () => {
        const explorer = await s.get(`/v2/explorer/mainnet/tx/${tx.id}`);
        assert.equal(explorer.status, 200);
        assert.equal(explorer.body.validContract, true);
        assert.equal(explorer.body.inputs.length, 2);
        assert.deepEqual(
          explorer.body.collateral.map((
            c: { txHash: string; outputIndex: number },
          ) => [c.txHash, c.outputIndex]),
          [[collateral!.transaction.id, collateral!.index]],
        );
      });

      await t.step(
        "GraphQL: the redeemer with its budget, script and data; the collateral input",
        async () => {
          const data = await s.graphql(`{
          redeemer(where: {tx: {hash: {_eq: "${tx.id}"}}}) {
            purpose index unit_mem unit_steps script_hash redeemer_data { hash }
          }
          collateral_tx_in(where: {tx: {hash: {_eq: "${tx.id}"}}}) { tx_out_index out_tx { hash } }
          tx(where: {hash: {_eq: "${tx.id}"}}) { valid_contract script_size }
        }`);
          assert.deepEqual(data.redeemer, [{
            purpose: "spend",
            index: 0,
            unit_mem: String(budget.memory),
            unit_steps: String(budget.cpu),
            script_hash: `${alwaysSucceeds.hash().to_hex()}`,
            redeemer_data: { hash: `${CSL.hash_plutus_data(unit()).to_hex()}` },
          }]);
          assert.deepEqual(data.collateral_tx_in, [{
            tx_out_index: collateral!.index,
            out_tx: { hash: `${collateral!.transaction.id}` },
          }]);
          assert.equal(data.tx[0].valid_contract, true);
        },
      );

      await t.step("chain sync: the transaction's redeemer, budget and collateral", async () => {
        const seen = await s.syncUntil(tx.id);
        assert.deepEqual(seen.redeemers, [{
          validator: { purpose: "spend", index: 0 },
          redeemer: "d87980",
          executionUnits: budget,
        }]);
        assert.deepEqual(seen.collaterals, [{
          transaction: { id: collateral!.transaction.id },
          index: collateral!.index,
        }]);
        assert.deepEqual(seen.collateralReturn?.address, wallet!.address);
      });

      await t.step(
        "a Plutus V1 spend: the datum by hash in the witness set (a tagged set), evaluated, confirmed",
        async () => {
          const v1 = CSL.PlutusScript.from_hex_with_version(
            "4e4d01000033222220051200120011",
            CSL.Language.new_plutus_v1(),
          );
          const v1Address = CSL.EnterpriseAddress.new(1, CSL.Credential.from_scripthash(v1.hash()))
            .to_address();
          const datumHash = CSL.hash_plutus_data(unit()).to_hex();
          // fuel: the V2 spend's change
          const fuelV1 = (await s.utxosOf(wallet!.address)).find((u) => u.transaction.id === tx.id)!;
          const lockBuilder = CSL.TransactionBuilder.new(s.config);
          lockBuilder.add_regular_input(
            walletAddress,
            inputOf(fuelV1),
            CSL.Value.new(big(fuelV1.value.ada.lovelace)),
          );
          const lockedV1 = CSL.TransactionOutput.new(v1Address, CSL.Value.new(big(20_000_000)));
          lockedV1.set_data_hash(CSL.hash_plutus_data(unit()));
          lockBuilder.add_output(lockedV1);
          lockBuilder.add_change_if_needed(walletAddress);
          const lockV1 = signed(lockBuilder);
          assert.equal(await s.client.submitTransaction(lockV1.cbor), lockV1.id);
          await s.confirmed(lockV1.id);
          const [locked] = await s.utxosOf(v1Address.to_bech32());
          assert.equal((locked as OgmiosUtxo & { datumHash?: string }).datumHash, datumHash);
          const fuel = (await s.utxosOf(wallet!.address)).find((u) => u.transaction.id === lockV1.id)!;

          const v1Spend = { script: v1, locked: locked!, fuel, datum: unit() };
          const [evaluation] = await s.client.evaluateTransaction(
            spendFrom(v1Spend, { memory: 14_000_000, cpu: 10_000_000_000 }).cbor,
          );
          assert.deepEqual(evaluation!.validator, { purpose: "spend", index: 0 });
          const v1Budget = { memory: Number(evaluation!.budget.memory), cpu: Number(evaluation!.budget.cpu) };
          assert.ok(v1Budget.memory > 0 && v1Budget.cpu > 0);
          // committing to another V1 cost model: 3113 with both hashes, nothing spent
          const otherModels = CSL.Costmdls.from_bytes(s.costModels.to_bytes());
          const otherV1 = otherModels.get(CSL.Language.new_plutus_v1())!;
          otherV1.set(0, CSL.Int.from_str(String(BigInt(otherV1.get(0).to_str()) + 1n)));
          otherModels.insert(CSL.Language.new_plutus_v1(), otherV1);
          const unspentBefore = await s.utxosOf(wallet!.address);
          const wrong = spendFrom({ ...v1Spend, costModels: otherModels }, v1Budget);
          await assert.rejects(
            s.client.submitTransaction(wrong.cbor),
            (e: { code?: number; data?: Json }) => {
              assert.equal(e.code, 3113);
              assert.equal(e.data.computedScriptIntegrity, spendFrom(v1Spend, v1Budget).scriptDataHash);
              assert.notEqual(e.data.providedScriptIntegrity, e.data.computedScriptIntegrity);
              return true;
            },
          );
          assert.deepEqual(await s.utxosOf(wallet!.address), unspentBefore);
          assert.equal((await s.utxosOf(v1Address.to_bech32())).length, 1);

          const spent = spendFrom(v1Spend, v1Budget);
          assert.equal(await s.client.submitTransaction(spent.cbor), spent.id);
          assert.equal((await s.confirmed(spent.id)).fee, spent.fee.to_str());
          assert.deepEqual(await s.utxosOf(v1Address.to_bech32()), []);

          const data = await s.graphql(`{
            redeemer(where: {tx: {hash: {_eq: "${spent.id}"}}}) { script_hash unit_mem }
            datum(where: {hash: {_eq: "${datumHash}"}}) { bytes }
          }`);
          assert.deepEqual(data.redeemer, [{
            script_hash: v1.hash().to_hex(),
            unit_mem: String(v1Budget.memory),
          }]);
          assert.deepEqual(data.datum, [{ bytes: "d87980" }]);
          const seen = await s.syncUntil(spent.id);
          // (witness datums and scripts are not in chain sync: db-sync keeps each under its first transaction)
          assert.deepEqual(seen.redeemers, [{
            validator: { purpose: "spend", index: 0 },
            redeemer: "d87980",
            executionUnits: v1Budget,
          }]);
          assert.ok(
            seen.inputs.some((i: { transaction: { id: string }; index: number }) =>
              i.transaction.id === lockV1.id && i.index === 0
            ),
          );
        },
      );
    } finally {
      await s.close();
    }
  },
});
