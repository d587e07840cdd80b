/**
 * The devnet end to end through the running service (embedded default, a block a second): the CLI's wallets are
 * the funded ones; a payment built and signed with cardano-serialization-lib is evaluated and submitted with the
 * official Ogmios client, confirmed by tx-status, seen by the explorer, GraphQL and a chain-sync session that
 * intersected before it; a second spend of the same input answers 3117 and leaves the UTxO set as it was; a
 * native-script mint of two assets lands and the explorer, GraphQL, ledger state and chain sync show it; the README's example script runs as written.
 */
import assert from "node:assert/strict";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { big } from "../../scripts/devnet_example.ts";
import { type Json, type OgmiosUtxo, openDevnetService, sleep } from "../support/devnet_service.ts";
import { testDatabaseUrl } from "../support/databases.ts";

Deno.test({
  name: "devnet end to end: CSL payment and mint through the official client, seen by every interface",
  // the devnet runs on the embedded demo chain (the PostgreSQL run serves db-sync databases)
  ignore: testDatabaseUrl !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const s = await openDevnetService("devnet_e2e_payment");
    try {
      assert.ok(
        s.lines.some((l) => /mainnet: JSON-RPC node client is the devnet/.test(l)),
        "the start log names the devnet",
      );
      const [payer, payee] = s.wallets;
      const before = await s.utxosOf(payer!.address);
      assert.equal(before.length, 4, "the CLI's wallet is the one the service funded");

      const signingKey = CSL.PrivateKey.from_bech32(payer!.signingKey);
      const payerAddress = CSL.Address.from_bech32(payer!.address);
      const payment = (input: OgmiosUtxo, lovelace: number) => {
        const builder = CSL.TransactionBuilder.new(s.config);
        builder.add_regular_input(
          payerAddress,
          CSL.TransactionInput.new(CSL.TransactionHash.from_hex(input.transaction.id), input.index),
          CSL.Value.new(big(input.value.ada.lovelace)),
        );
        builder.add_output(
          CSL.TransactionOutput.new(CSL.Address.from_bech32(payee!.address), CSL.Value.new(big(lovelace))),
        );
        builder.add_change_if_needed(payerAddress);
        const fixed = CSL.FixedTransaction.from_bytes(builder.build_tx().to_bytes());
        fixed.sign_and_add_vkey_signature(signingKey);
        return {
          cbor: fixed.to_hex(),
          id: fixed.transaction_hash().to_hex(),
          fee: builder.get_fee_if_set()!,
        };
      };
      const tx = payment(before[0]!, 12_345_678);
      await s.syncFromTip();

      await t.step("evaluateTransaction of a payment without scripts: no budgets", async () => {
        assert.deepEqual(await s.client.evaluateTransaction(tx.cbor), []);
      });

      await t.step("submitted with the official client, confirmed by tx-status", async () => {
        assert.equal(await s.client.submitTransaction(tx.cbor), tx.id);
        assert.equal((await s.confirmed(tx.id)).fee, tx.fee.to_str());
      });

      await t.step("the explorer and GraphQL see it", async () => {
        const explorer = await s.get(`/v2/explorer/mainnet/tx/${tx.id}`);
        assert.equal(explorer.status, 200);
        assert.equal(explorer.body.fee, tx.fee.to_str());
        const paid = explorer.body.outputs.find((o: { address: string }) => o.address === payee!.address);
        assert.equal(paid?.value, "12345678");
        assert.equal(explorer.body.inputs.length, 1);
        const [row] =
          (await s.graphql(`{ tx(where: {hash: {_eq: "${tx.id}"}}) { fee block { block_no } } }`)).tx;
        assert.equal(String(row.fee), tx.fee.to_str());
        assert.equal(row.block.block_no, explorer.body.blockNo);
      });

      await t.step("a chain-sync session from before the submission rolls forward to its block", async () => {
        const seen = await s.syncUntil(tx.id);
        assert.equal(seen.fee.ada.lovelace, Number(tx.fee.to_str()));
      });

      await t.step("spending the spent input again: 3117, UTxO set unchanged", async () => {
        const after = await s.utxosOf(payer!.address);
        assert.ok(
          !after.some((u) => u.transaction.id === before[0]!.transaction.id && u.index === before[0]!.index),
        );
        const again = payment(before[0]!, 2_000_000);
        await assert.rejects(
          s.client.submitTransaction(again.cbor),
          (e: { code?: number; data?: unknown }) => {
            assert.equal(e.code, 3117);
            assert.deepEqual(e.data, {
              unknownOutputReferences: [{
                transaction: { id: before[0]!.transaction.id },
                index: before[0]!.index,
              }],
            });
            return true;
          },
        );
        await sleep(2_500); // two blocks later
        assert.deepEqual(await s.utxosOf(payer!.address), after);
      });

      await t.step(
        "a multi-asset mint built with CSL: confirmed, seen by the explorer, GraphQL, ledger state and chain sync",
        async () => {
          const input = before[1]!;
          const builder = CSL.TransactionBuilder.new(s.config);
          builder.add_regular_input(
            payerAddress,
            CSL.TransactionInput.new(CSL.TransactionHash.from_hex(input.transaction.id), input.index),
            CSL.Value.new(big(input.value.ada.lovelace)),
          );
          const policy = CSL.NativeScript.new_script_pubkey(
            CSL.ScriptPubkey.new(signingKey.to_public().hash()),
          );
          const policyId = policy.hash().to_hex();
          // two assets of one policy in one output: "E2E" (453245) x 500 and "E2F" (453246) x 7
          const minted = [["E2E", 500], ["E2F", 7]] as const;
          const assets = CSL.Assets.new();
          for (const [name, quantity] of minted) {
            const assetName = CSL.AssetName.new(new TextEncoder().encode(name));
            builder.add_mint_asset(policy, assetName, CSL.Int.new_i32(quantity));
            assets.insert(assetName, big(quantity));
          }
          const multiAsset = CSL.MultiAsset.new();
          multiAsset.insert(policy.hash(), assets);
          builder.add_output(
            CSL.TransactionOutputBuilder.new().with_address(payerAddress).next()
              .with_asset_and_min_required_coin_by_utxo_cost(
                multiAsset,
                CSL.DataCost.new_coins_per_byte(big(s.protocolParameters.minUtxoDepositCoefficient)),
              )
              .build(),
          );
          builder.add_change_if_needed(payerAddress);
          const fixed = CSL.FixedTransaction.from_bytes(builder.build_tx().to_bytes());
          fixed.sign_and_add_vkey_signature(signingKey);
          const id = fixed.transaction_hash().to_hex();
          assert.deepEqual(
            await s.client.evaluateTransaction(fixed.to_hex()),
            [],
            "native scripts have no budgets",
          );
          assert.equal(await s.client.submitTransaction(fixed.to_hex()), id);
          await s.confirmed(id);

          const explorer = await s.get(`/v2/explorer/mainnet/tx/${id}`);
          assert.equal(explorer.status, 200);
          assert.deepEqual(
            explorer.body.mints.map((m: { policyId: string; assetNameHex: string; quantity: string }) => ({
              policyId: m.policyId,
              assetNameHex: m.assetNameHex,
              quantity: m.quantity,
            })),
            [
              { policyId, assetNameHex: "453245", quantity: "500" },
              { policyId, assetNameHex: "453246", quantity: "7" },
            ],
          );
          const [output] = explorer.body.outputs;
          assert.deepEqual(
            output.tokens.map((t: { assetName: string; quantity: string }) => [t.assetName, t.quantity]),
            [["E2E", "500"], ["E2F", "7"]],
          );

          const data = await s.graphql(`{
            ma_tx_mint(where: {tx: {hash: {_eq: "${id}"}}}, order_by: {multi_asset: {name: asc}}) {
              quantity multi_asset { policy name fingerprint }
            }
            ma_tx_out(where: {tx_out: {tx: {hash: {_eq: "${id}"}}}}, order_by: {multi_asset: {name: asc}}) {
              quantity tx_out { index }
            }
          }`);
          assert.deepEqual(
            data.ma_tx_mint.map((m: Json) => [m.quantity, m.multi_asset.policy, m.multi_asset.name]),
            [["500", policyId, "453245"], ["7", policyId, "453246"]],
          );
          assert.deepEqual(
            data.ma_tx_mint.map((m: Json) => m.multi_asset.fingerprint),
            output.tokens.map((t: { fingerprint: string }) => t.fingerprint),
          );
          assert.deepEqual(data.ma_tx_out, [
            { quantity: "500", tx_out: { index: 0 } },
            { quantity: "7", tx_out: { index: 0 } },
          ]);

          const unspent = (await s.utxosOf(payer!.address)).find((u) =>
            u.transaction.id === id && u.index === 0
          );
          assert.deepEqual(unspent?.value[policyId], { "453245": 500, "453246": 7 });

          const seen = await s.syncUntil(id);
          assert.deepEqual(seen.mint, { [policyId]: { "453245": 500, "453246": 7 } });
          assert.deepEqual(seen.outputs[0].value[policyId], { "453245": 500, "453246": 7 });
        },
      );

      await t.step("the README's example script pays 5 ada and waits for its block", async () => {
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", "scripts/devnet_example.ts"],
          env: { ...s.env, SERVICE_URL: s.base, APIKEY: s.key },
          stdout: "piped",
          stderr: "piped",
        }).output();
        assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
        const printed = JSON.parse(new TextDecoder().decode(out.stdout));
        const status = await s.confirmed(printed.id);
        assert.equal(status.blockNo, printed.blockNo);
        const explorer = await s.get(`/v2/explorer/mainnet/tx/${printed.id}`);
        const paid = explorer.body.outputs.find((o: { address: string }) => o.address === payee!.address);
        assert.equal(paid?.value, "5000000");
      });

      await t.step("bad transactions and additionalUtxo answer errors, never crash the service", async () => {
        const evaluate = (params: unknown) => s.rpc("evaluateTransaction", params);
        assert.equal((await evaluate({ transaction: { cbor: "00ff" } })).error.code, -32602);
        assert.equal(
          (await s.rpc("submitTransaction", { transaction: { cbor: "8400" } })).error.code,
          -32602,
        );
        for (const additionalUtxo of [[null], [5], [{ transaction: { id: "zz" }, index: -1 }]]) {
          const answer = await evaluate({ transaction: { cbor: tx.cbor }, additionalUtxo });
          assert.equal(typeof answer.error?.code, "number", JSON.stringify(answer));
        }
        assert.equal((await s.get("/health")).status, 200);
      });
    } finally {
      await s.close();
    }
  },
});
