/**
 * Blaze's `Blockfrost` provider (@blaze-cardano/query), unmodified: its constructor builds
 * `https://<network>.blockfrost.io/api/v0/` and its public `url` is set to preprod's base on the service. It
 * reads the protocol parameters and a `HotSingleWallet`'s UTxOs, Blaze's builder balances a payment the wallet
 * signs, the provider submits it (`postTransactionToChain`), `awaitTransactionConfirmation` (which polls
 * `/txs/{h}/metadata/cbor`, 20 s apart) says it is in a block, and it is at the payee in `/addresses/{a}/utxos`.
 */
import assert from "node:assert/strict";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { Blaze, Blockfrost, Core, HotSingleWallet } from "@blaze-cardano/sdk";
import { lovelaceOf, openBlockfrostDevnet } from "../../support/blockfrost_devnet.ts";

Deno.test({
  name: "blockfrost providers: Blaze pays with its builder and awaits the confirmation",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const s = await openBlockfrostDevnet("bf_blaze");
    try {
      const [payer, payee] = s.wallets;
      const provider = new Blockfrost({ network: "cardano-preprod", projectId: s.key });
      provider.url = `${s.bfBase}/`;
      const raw = CSL.PrivateKey.from_bech32(payer!.signingKey).as_bytes();
      const wallet = new HotSingleWallet(
        Core.Ed25519PrivateNormalKeyHex(Array.from(raw, (b) => b.toString(16).padStart(2, "0")).join("")),
        Core.NetworkId.Testnet,
        provider,
      );
      const blaze = await Blaze.from(provider, wallet);

      await t.step(
        "its doubled slashes (`…/v0//addresses/…`) merged as Blockfrost's hosts merge them",
        async () => {
          const health = await fetch(`${provider.url}/health`, { headers: provider.headers() });
          assert.equal(health.status, 200);
          assert.deepEqual(await health.json(), { is_healthy: true });
        },
      );

      await t.step("protocol parameters and the wallet's UTxOs", async () => {
        const p = await provider.getParameters();
        assert.equal(p.minFeeCoefficient, Number(s.protocolParameters.minFeeCoefficient));
        assert.equal(p.minFeeConstant, Number(s.protocolParameters.minFeeConstant.ada.lovelace));
        assert.equal(Number(p.coinsPerUtxoByte), Number(s.protocolParameters.minUtxoDepositCoefficient));
        assert.equal(
          p.costModels.get(Core.PlutusLanguageVersion.V2)?.length,
          s.protocolParameters.plutusCostModels["plutus:v2"]?.length,
        );
        assert.equal((await wallet.getChangeAddress()).toBech32(), payer!.address);
        const utxos = await wallet.getUnspentOutputs();
        const ledger = await s.utxosOf(payer!.address);
        assert.deepEqual(
          utxos.map((u) => `${u.input().transactionId()}#${u.input().index()}:${u.output().amount().coin()}`)
            .sort(),
          ledger.map((u) => `${u.transaction.id}#${u.index}:${u.value.ada.lovelace}`).sort(),
        );
      });

      const tx = await blaze.newTransaction()
        .payLovelace(Core.Address.fromBech32(payee!.address), 6_543_210n)
        .complete();
      const signed = await blaze.signTransaction(tx);
      const id = signed.getId();
      await t.step(
        "a payment built by Blaze and signed by its wallet, submitted by the provider",
        async () => {
          assert.equal(await blaze.submitTransaction(signed, true), id);
        },
      );

      await t.step("confirmed as Blaze waits (awaitTransactionConfirmation)", async () => {
        assert.equal(await provider.awaitTransactionConfirmation(id, 60_000), true);
      });

      await t.step("at the payee in /addresses/{a}/utxos", async () => {
        const paid = await s.landed(payee!.address, id);
        assert.deepEqual(paid.map(lovelaceOf), [6_543_210n]);
      });
    } finally {
      await s.close();
    }
  },
});
