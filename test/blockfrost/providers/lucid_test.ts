/**
 * Lucid Evolution's own `Blockfrost(url, projectId)` provider, unmodified, against the preprod devnet through the
 * Blockfrost dialect: it reads the protocol parameters and a funded wallet's UTxOs, builds, signs and submits a
 * payment with Lucid's builder, waits with `awaitTx`, and the payment is at the payee in `/addresses/{a}/utxos`.
 * Then a chain of two transactions built before either is submitted: the first puts an always-succeeds PlutusV2
 * validator in a reference-script output and locks ada at it with an inline datum; the second spends the locked
 * output through that reference script, its budget evaluated by the service (`/utils/txs/evaluate/utxos`) from
 * the first's outputs, which only Lucid's `additionalUtxoSet` carries. Both submitted, the spend lands.
 */
import assert from "node:assert/strict";
import {
  applyDoubleCborEncoding,
  Blockfrost,
  Data,
  Lucid,
  type SpendingValidator,
  validatorToAddress,
  validatorToScriptHash,
} from "@lucid-evolution/lucid";
import { lovelaceOf, openBlockfrostDevnet } from "../../support/blockfrost_devnet.ts";

/** The always-succeeds PlutusV2 validator the demo chain uses (CBOR of its flat bytes). */
const alwaysSucceeds: SpendingValidator = {
  type: "PlutusV2",
  script: applyDoubleCborEncoding("4e4d01000033222220051200120011"),
};

Deno.test({
  name: "blockfrost providers: Lucid pays, awaits, and chains a Plutus spend through a reference script",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const s = await openBlockfrostDevnet("bf_lucid");
    try {
      const [payer, payee] = s.wallets;
      const lucid = await Lucid(new Blockfrost(s.bfBase, s.key), "Preprod");
      lucid.selectWallet.fromPrivateKey(payer!.signingKey);

      await t.step("protocol parameters as the ledger has them", () => {
        const p = lucid.config().protocolParameters!;
        const ledger = s.protocolParameters;
        assert.equal(p.minFeeA, Number(ledger.minFeeCoefficient));
        assert.equal(p.minFeeB, Number(ledger.minFeeConstant.ada.lovelace));
        assert.equal(p.coinsPerUtxoByte, BigInt(ledger.minUtxoDepositCoefficient));
        assert.equal(p.maxTxSize, Number(ledger.maxTransactionSize.bytes));
        assert.equal(p.minFeeRefScriptCostPerByte, ledger.minFeeReferenceScripts.base);
        assert.deepEqual(p.costModels.PlutusV2, ledger.plutusCostModels["plutus:v2"]?.map(Number));
      });

      await t.step("the funded wallet's UTxOs", async () => {
        const utxos = await lucid.wallet().getUtxos();
        const ledger = await s.utxosOf(payer!.address);
        assert.equal(utxos.length, ledger.length);
        assert.deepEqual(
          utxos.map((u) => `${u.txHash}#${u.outputIndex}:${u.assets.lovelace}`).sort(),
          ledger.map((u) => `${u.transaction.id}#${u.index}:${u.value.ada.lovelace}`).sort(),
        );
      });

      await t.step("a payment built, signed and submitted by Lucid, awaited with awaitTx", async () => {
        const tx = await lucid.newTx().pay.ToAddress(payee!.address, { lovelace: 12_345_678n }).complete();
        const signed = await tx.sign.withWallet().complete();
        const id = await signed.submit();
        assert.equal(id, signed.toHash());
        assert.equal(await lucid.awaitTx(id, 1_000), true);
        const paid = await s.landed(payee!.address, id);
        assert.deepEqual(paid.map(lovelaceOf), [12_345_678n]);
        const explorer = await s.get(`/v2/explorer/preprod/tx/${id}`);
        assert.equal(explorer.status, 200);
        assert.equal(explorer.body.fee, tx.toTransaction().body().fee().toString());
      });

      await t.step(
        "a Plutus spend through a reference script and an inline datum, chained on an unsubmitted transaction",
        async () => {
          const scriptAddress = validatorToAddress("Preprod", alwaysSucceeds);
          // the first: the validator in a reference-script output, 20 ada locked at it with an inline datum
          const [walletAfterDeploy, deployed, deploy] = await lucid.newTx()
            .pay.ToAddressWithData(payee!.address, undefined, { lovelace: 30_000_000n }, alwaysSucceeds)
            .pay.ToContract(scriptAddress, { kind: "inline", value: Data.void() }, { lovelace: 20_000_000n })
            .chain();
          const reference = deployed.find((u) => u.scriptRef)!;
          const locked = deployed.find((u) => u.address === scriptAddress)!;
          assert.equal(locked.datum, Data.void());

          // the second, over the first's outputs, evaluated by the service before the first is submitted
          lucid.overrideUTxOs(walletAfterDeploy);
          const spend = await lucid.newTx()
            .collectFrom([locked], Data.void())
            .readFrom([reference])
            .complete({ localUPLCEval: false });
          const redeemers = spend.toTransaction().witness_set().redeemers()!.as_arr_legacy_redeemer()!;
          assert.equal(redeemers.len(), 1);
          const budget = redeemers.get(0).ex_units();
          assert.ok(budget.mem() > 0n && budget.steps() > 0n, "the service's evaluation set the budget");
          assert.ok(budget.mem() < 14_000_000n);

          const deployId = await (await deploy.sign.withWallet().complete()).submit();
          const spendSigned = await spend.sign.withWallet().complete();
          const spendId = await spendSigned.submit();
          assert.equal(await lucid.awaitTx(spendId, 1_000), true);
          assert.equal(await lucid.awaitTx(deployId, 1_000), true);

          // the locked output is spent; the reference script stays, at the payee, with its hash
          assert.ok(!(await s.bfUtxos(scriptAddress)).some((u) => u.tx_hash === deployId));
          const [kept] = (await s.bfUtxos(payee!.address)).filter((u) => u.tx_hash === deployId);
          assert.equal(kept?.reference_script_hash, validatorToScriptHash(alwaysSucceeds));
          const explorer = await s.get(`/v2/explorer/preprod/tx/${spendId}`);
          assert.equal(explorer.status, 200);
          assert.equal(explorer.body.validContract, true);
        },
      );
    } finally {
      await s.close();
    }
  },
});
