/**
 * Mesh's `BlockfrostProvider(url)`, unmodified, as `@meshsdk/core` re-exports it (the key form's test takes the
 * `@meshsdk/provider` package's own), against the preprod devnet: that form sends no key header, so
 * the key is in the URL's path (`/key/{key}/api/preprod/v0`). It reads the protocol parameters and the wallet's
 * UTxOs; MeshTxBuilder balances a payment the MeshWallet signs; the provider submits it and `onTxConfirmed`
 * fires once its block has a successor; the payment is at the payee in `/addresses/{a}/utxos`.
 */
import assert from "node:assert/strict";
import { lovelaceOf, openBlockfrostDevnet } from "../../support/blockfrost_devnet.ts";
import { BlockfrostProvider } from "@meshsdk/core";
import { meshPayment } from "../../support/mesh_payment.ts";

Deno.test({
  name: "blockfrost providers: Mesh's URL form pays with MeshTxBuilder and waits with onTxConfirmed",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const s = await openBlockfrostDevnet("bf_mesh_url");
    try {
      const [payer, payee] = s.wallets;
      const ledger = await s.utxosOf(payer!.address);
      const result = await meshPayment(new BlockfrostProvider(s.bfKeyedBase), {
        signingKey: payer!.signingKey,
        to: payee!.address,
        lovelace: 9_876_543n,
      });
      assert.equal(result.walletAddress, payer!.address);
      assert.deepEqual(
        [...result.utxos].sort(),
        ledger.map((u) => `${u.transaction.id}#${u.index}:${u.value.ada.lovelace}`).sort(),
      );
      assert.equal(result.minFeeA, Number(s.protocolParameters.minFeeCoefficient));
      assert.equal(result.minFeeB, Number(s.protocolParameters.minFeeConstant.ada.lovelace));
      assert.equal(result.coinsPerUtxoSize, String(s.protocolParameters.minUtxoDepositCoefficient));
      const paid = await s.landed(payee!.address, result.id);
      assert.deepEqual(paid.map(lovelaceOf), [9_876_543n]);
    } finally {
      await s.close();
    }
  },
});
