/**
 * The preprod devnet end to end (network id 0) through the running service: the CLI's `--network preprod`
 * wallets (addr_test1v…) are funded; a CSL payment to a base address (addr_test1q… with a stake_test1… part),
 * submitted with the official client on `/v1/preprod/ogmios`, is confirmed by tx-status with `network=preprod`
 * (and unknown to mainnet's), seen by `/v2/explorer/preprod/tx/…`, `/v1/preprod/graphql` and the stake_test1…
 * account; an output to a mainnet address is 3124; the README's example script runs with NETWORK=preprod.
 */
import assert from "node:assert/strict";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { big } from "../../scripts/devnet_example.ts";
import { type OgmiosUtxo, openDevnetService } from "../support/devnet_service.ts";
import { testDatabaseUrl } from "../support/databases.ts";

Deno.test({
  name: "devnet end to end on preprod: a payment between testnet addresses, a mainnet output refused",
  // the devnet runs on the embedded demo chain (the PostgreSQL run serves db-sync databases)
  ignore: testDatabaseUrl !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const s = await openDevnetService("devnet_e2e_preprod", { network: "preprod" });
    try {
      assert.ok(
        s.lines.some((l) => /preprod: JSON-RPC node client is the devnet/.test(l)),
        "the start log names preprod's devnet",
      );
      const [payer, payee] = s.wallets;
      assert.match(payer!.address, /^addr_test1v/);
      const before = await s.utxosOf(payer!.address);
      assert.equal(before.length, 4, "the CLI's preprod wallet is the one the service funded");

      const payeeKeyHash = CSL.Address.from_bech32(payee!.address).payment_cred()!.to_keyhash()!;
      const stakeKey = CSL.PrivateKey.from_normal_bytes(new Uint8Array(32).fill(7));
      const stakeCredential = CSL.Credential.from_keyhash(stakeKey.to_public().hash());
      const baseAddress = CSL.BaseAddress.new(0, CSL.Credential.from_keyhash(payeeKeyHash), stakeCredential)
        .to_address().to_bech32(undefined);
      const stakeAddress = CSL.RewardAddress.new(0, stakeCredential).to_address().to_bech32(undefined);
      assert.match(baseAddress, /^addr_test1q/);
      assert.match(stakeAddress, /^stake_test1u/);

      const payerAddress = CSL.Address.from_bech32(payer!.address);
      const payment = (input: OgmiosUtxo, to: string, lovelace: number) => {
        const builder = CSL.TransactionBuilder.new(s.config);
        builder.add_regular_input(
          payerAddress,
          CSL.TransactionInput.new(CSL.TransactionHash.from_hex(input.transaction.id), input.index),
          CSL.Value.new(big(input.value.ada.lovelace)),
        );
        builder.add_output(
          CSL.TransactionOutput.new(CSL.Address.from_bech32(to), CSL.Value.new(big(lovelace))),
        );
        builder.add_change_if_needed(payerAddress);
        const fixed = CSL.FixedTransaction.from_bytes(builder.build_tx().to_bytes());
        fixed.sign_and_add_vkey_signature(CSL.PrivateKey.from_bech32(payer!.signingKey));
        return {
          cbor: fixed.to_hex(),
          id: fixed.transaction_hash().to_hex(),
          fee: builder.get_fee_if_set()!.to_str(),
        };
      };
      const tx = payment(before[0]!, baseAddress, 12_345_678);

      await t.step(
        "submitted on /v1/preprod/ogmios, confirmed by tx-status with network=preprod",
        async () => {
          assert.deepEqual(await s.client.evaluateTransaction(tx.cbor), []);
          assert.equal(await s.client.submitTransaction(tx.cbor), tx.id);
          assert.equal((await s.confirmed(tx.id)).fee, tx.fee);
          const onMainnet = await s.get(`/api/public/tx-status?txHash=${tx.id}`);
          assert.equal(onMainnet.body.found, false, "tx-status is mainnet's without network=preprod");
        },
      );

      await t.step("the preprod explorer, GraphQL and the stake_test1 account see it", async () => {
        const explorer = await s.get(`/v2/explorer/preprod/tx/${tx.id}`);
        assert.equal(explorer.status, 200);
        assert.equal(explorer.body.fee, tx.fee);
        const paid = explorer.body.outputs.find((o: { address: string }) => o.address === baseAddress);
        assert.equal(paid?.value, "12345678");
        assert.equal((await s.get(`/v2/explorer/mainnet/tx/${tx.id}`)).status, 404);

        const [row] = (await s.graphql(`{ tx(where: {hash: {_eq: "${tx.id}"}}) {
          fee block { block_no } tx_outs(where: {value: {_eq: "12345678"}}) { address stake_address { view } }
        } }`)).tx;
        assert.equal(String(row.fee), tx.fee);
        assert.equal(row.block.block_no, explorer.body.blockNo);
        assert.deepEqual(row.tx_outs, [{ address: baseAddress, stake_address: { view: stakeAddress } }]);

        const account = await s.get(`/api/public/stake-account?address=${stakeAddress}`);
        assert.equal(account.status, 200);
        assert.equal(account.body.registered, false);
        assert.equal(account.body.totalStake, "12345678");
      });

      await t.step("an output to a mainnet address is 3124 NetworkMismatch", async () => {
        const [, second] = await s.utxosOf(payer!.address);
        const mainnetAddress = CSL.EnterpriseAddress.new(1, CSL.Credential.from_keyhash(payeeKeyHash))
          .to_address().to_bech32(undefined);
        assert.match(mainnetAddress, /^addr1v/);
        const refused = payment(second!, mainnetAddress, 5_000_000);
        const error = await s.client.submitTransaction(refused.cbor).then(
          () => assert.fail("a mainnet output was accepted on preprod"),
          (e) => e,
        );
        assert.equal(error.code, 3124);
        assert.deepEqual(error.data, {
          expectedNetwork: "testnet",
          discriminatedType: "address",
          invalidEntities: [mainnetAddress],
        });
      });

      await t.step("the README's example script with NETWORK=preprod", async () => {
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", "scripts/devnet_example.ts"],
          env: { ...s.env, SERVICE_URL: s.base, APIKEY: s.key, NETWORK: "preprod" },
          stdout: "piped",
          stderr: "piped",
        }).output();
        assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
        const printed = JSON.parse(new TextDecoder().decode(out.stdout));
        assert.equal((await s.confirmed(printed.id)).blockNo, printed.blockNo);
        const explorer = await s.get(`/v2/explorer/preprod/tx/${printed.id}`);
        const paid = explorer.body.outputs.find((o: { address: string }) => o.address === payee!.address);
        assert.equal(paid?.value, "5000000");
      });
    } finally {
      await s.close();
    }
  },
});
