/**
 * Blockfrost's own SDK, `@blockfrost/blockfrost-js` (`BlockFrostAPI` with `customBackend`), unmodified, against
 * the preprod devnet: a payment built with cardano-serialization-lib from what the SDK reads (the latest epoch's
 * parameters, the wallet's UTxOs through `addressesUtxosAll`), submitted with `txSubmit`, confirmed by polling
 * `txs(hash)` as its examples do, and seen at the payee through `addressesUtxosAll` and `txsUtxos`.
 */
import assert from "node:assert/strict";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { BlockFrostAPI, BlockfrostServerError } from "@blockfrost/blockfrost-js";
import { big } from "../../../scripts/devnet_example.ts";
import { sleep } from "../../support/devnet_service.ts";
import { openBlockfrostDevnet } from "../../support/blockfrost_devnet.ts";

Deno.test({
  name: "blockfrost providers: blockfrost-js reads, submits a CSL payment and polls it to a block",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const s = await openBlockfrostDevnet("bf_blockfrost_js");
    try {
      const [payer, payee] = s.wallets;
      const api = new BlockFrostAPI({ projectId: s.key, network: "preprod", customBackend: s.bfBase });
      const params = await api.epochsLatestParameters();

      await t.step("the latest epoch's parameters as the ledger has them", () => {
        assert.equal(params.min_fee_a, Number(s.protocolParameters.minFeeCoefficient));
        assert.equal(params.min_fee_b, Number(s.protocolParameters.minFeeConstant.ada.lovelace));
        assert.equal(params.coins_per_utxo_size, String(s.protocolParameters.minUtxoDepositCoefficient));
        assert.equal(params.max_tx_size, Number(s.protocolParameters.maxTransactionSize.bytes));
      });

      const utxos = await api.addressesUtxosAll(payer!.address);
      await t.step("the funded wallet's UTxOs", async () => {
        const ledger = await s.utxosOf(payer!.address);
        assert.deepEqual(
          utxos.map((u) => `${u.tx_hash}#${u.output_index}:${u.amount[0]!.quantity}`).sort(),
          ledger.map((u) => `${u.transaction.id}#${u.index}:${u.value.ada.lovelace}`).sort(),
        );
      });

      await t.step(
        "a CSL payment from what the SDK read: submitted, polled to its block, at the payee",
        async () => {
          const ratio = (decimal: number) => {
            // the SDK gives prices as numbers (0.0577): back to a ratio of integers for CSL
            const denominator = 10_000_000;
            return CSL.UnitInterval.new(big(Math.round(decimal * denominator)), big(denominator));
          };
          const config = CSL.TransactionBuilderConfigBuilder.new()
            .fee_algo(CSL.LinearFee.new(big(params.min_fee_a), big(params.min_fee_b)))
            .coins_per_utxo_byte(big(params.coins_per_utxo_size!))
            .pool_deposit(big(params.pool_deposit))
            .key_deposit(big(params.key_deposit))
            .max_value_size(Number(params.max_val_size))
            .max_tx_size(params.max_tx_size)
            .ex_unit_prices(CSL.ExUnitPrices.new(ratio(params.price_mem!), ratio(params.price_step!)))
            .ref_script_coins_per_byte(ratio(params.min_fee_ref_script_cost_per_byte ?? 0))
            .build();
          const builder = CSL.TransactionBuilder.new(config);
          const payerAddress = CSL.Address.from_bech32(payer!.address);
          const inputs = CSL.TransactionUnspentOutputs.new();
          for (const u of utxos) {
            inputs.add(CSL.TransactionUnspentOutput.new(
              CSL.TransactionInput.new(CSL.TransactionHash.from_hex(u.tx_hash), u.output_index),
              CSL.TransactionOutput.new(payerAddress, CSL.Value.new(big(u.amount[0]!.quantity))),
            ));
          }
          builder.add_output(
            CSL.TransactionOutput.new(CSL.Address.from_bech32(payee!.address), CSL.Value.new(big(7_654_321))),
          );
          builder.add_inputs_from(inputs, CSL.CoinSelectionStrategyCIP2.LargestFirst);
          builder.add_change_if_needed(payerAddress);
          const tx = CSL.FixedTransaction.from_bytes(builder.build_tx().to_bytes());
          tx.sign_and_add_vkey_signature(CSL.PrivateKey.from_bech32(payer!.signingKey));
          const id = tx.transaction_hash().to_hex();

          assert.equal(await api.txSubmit(tx.to_bytes()), id);
          let block: string | undefined;
          for (let i = 0; i < 60 && !block; i++) {
            await sleep(500);
            block = await api.txs(id).then((x) => x.block, (e) => {
              // not in a block yet: the SDK throws Blockfrost's 404
              if (!(e instanceof BlockfrostServerError) || e.status_code !== 404) throw e;
              return undefined;
            });
          }
          assert.ok(block, `${id} in a block within 30 s`);
          const confirmed = await api.txs(id);
          assert.equal(confirmed.fees, builder.get_fee_if_set()!.to_str());

          const paid = (await api.addressesUtxosAll(payee!.address)).filter((u) => u.tx_hash === id);
          assert.deepEqual(paid.map((u) => u.amount), [[{ unit: "lovelace", quantity: "7654321" }]]);
          const outputs = await api.txsUtxos(id);
          assert.deepEqual(
            outputs.outputs.map((o) => o.address).sort(),
            [payee!.address, payer!.address].sort(),
          );
        },
      );
    } finally {
      await s.close();
    }
  },
});
