/**
 * Staking on the devnet end to end: a wallet derives a stake key, pays itself at a base address and registers and
 * delegates the credential to a live pool in one transaction built with CSL and submitted with the official
 * client. tx-status confirms it; stake-account, the explorer, GraphQL (stake_registration, delegation), the
 * ledger-state queries and chain sync all show it. Registering again is 3145 with the UTxO set unchanged;
 * deregistering refunds the deposit and stake-account says so.
 */
import assert from "node:assert/strict";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { big } from "../../scripts/devnet_example.ts";
import { type OgmiosUtxo, openDevnetService, sleep } from "../support/devnet_service.ts";
import { testDatabaseUrl } from "../support/databases.ts";

Deno.test({
  name: "devnet end to end: stake registration and delegation with CSL, seen by every interface",
  // the devnet runs on the embedded demo chain (the PostgreSQL run serves db-sync databases)
  ignore: testDatabaseUrl !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const s = await openDevnetService("devnet_e2e_stake");
    try {
      const [wallet] = s.wallets;
      const paymentKey = CSL.PrivateKey.from_bech32(wallet!.signingKey);
      const stakeKey = CSL.PrivateKey.generate_ed25519();
      const stakeCredential = CSL.Credential.from_keyhash(stakeKey.to_public().hash());
      const baseAddress = CSL.BaseAddress.new(
        1,
        CSL.Credential.from_keyhash(paymentKey.to_public().hash()),
        stakeCredential,
      ).to_address();
      const rewardAddress = CSL.RewardAddress.new(1, stakeCredential).to_address().to_bech32();
      const keyDeposit = BigInt(s.protocolParameters.stakeCredentialDeposit.ada.lovelace);
      const [poolId] = Object.keys((await s.rpc("queryLedgerState/stakePools")).result);
      assert.ok(poolId, "the demo chain has pools");
      const pool = CSL.Ed25519KeyHash.from_bech32(poolId);

      /** Spends `input` with `certificates`, pays `toBase` to the base address, change to the wallet. */
      const withCertificates = (input: OgmiosUtxo, certificates: Array<CSL.Certificate>, toBase?: number) => {
        const builder = CSL.TransactionBuilder.new(s.config);
        builder.add_regular_input(
          CSL.Address.from_bech32(wallet!.address),
          CSL.TransactionInput.new(CSL.TransactionHash.from_hex(input.transaction.id), input.index),
          CSL.Value.new(big(input.value.ada.lovelace)),
        );
        const certs = CSL.CertificatesBuilder.new();
        for (const c of certificates) certs.add(c);
        builder.set_certs_builder(certs);
        if (toBase) builder.add_output(CSL.TransactionOutput.new(baseAddress, CSL.Value.new(big(toBase))));
        builder.add_change_if_needed(CSL.Address.from_bech32(wallet!.address));
        const tx = CSL.FixedTransaction.from_bytes(builder.build_tx().to_bytes());
        tx.sign_and_add_vkey_signature(paymentKey);
        tx.sign_and_add_vkey_signature(stakeKey);
        return { cbor: tx.to_hex(), id: tx.transaction_hash().to_hex() };
      };
      const registration = () =>
        CSL.Certificate.new_reg_cert(
          CSL.StakeRegistration.new_with_explicit_deposit(stakeCredential, big(keyDeposit)),
        );
      const [first, second, third] = await s.utxosOf(wallet!.address);
      const register = withCertificates(first!, [
        registration(),
        CSL.Certificate.new_stake_delegation(CSL.StakeDelegation.new(stakeCredential, pool)),
      ], 25_000_000);
      await s.syncFromTip();

      await t.step("registration and delegation in one transaction: confirmed, deposit paid", async () => {
        assert.equal(await s.client.submitTransaction(register.cbor), register.id);
        await s.confirmed(register.id);
        const explorer = await s.get(`/v2/explorer/mainnet/tx/${register.id}`);
        assert.equal(explorer.status, 200);
        assert.equal(explorer.body.deposit, String(keyDeposit));
        assert.deepEqual(
          explorer.body.certificates.map((c: { type: string; stakeAddress: string; poolId?: string }) => [
            c.type,
            c.stakeAddress,
            c.poolId ?? null,
          ]),
          [["stake_registration", rewardAddress, null], ["delegation", rewardAddress, poolId]],
        );
      });

      await t.step("stake-account: registered, delegated to the pool, the base address's stake", async () => {
        const account = await s.get(`/api/public/stake-account?address=${rewardAddress}`);
        assert.equal(account.status, 200);
        assert.equal(account.body.registered, true);
        assert.equal(account.body.delegatedPoolId, poolId);
        assert.equal(account.body.rewardsBalance, "0");
        assert.equal(account.body.totalStake, "25000000");
      });

      await t.step("GraphQL: stake_registration and delegation rows as db-sync writes them", async () => {
        const data = await s.graphql(`{
          stake_registration(where: {tx: {hash: {_eq: "${register.id}"}}}) { cert_index deposit stake_address { view } }
          delegation(where: {tx: {hash: {_eq: "${register.id}"}}}) {
            cert_index active_epoch_no stake_address { view } pool_hash { view }
          }
          epoch(order_by: {no: desc}, limit: 1) { no }
        }`);
        assert.deepEqual(data.stake_registration, [
          { cert_index: 0, deposit: String(keyDeposit), stake_address: { view: rewardAddress } },
        ]);
        const [delegation] = data.delegation;
        assert.deepEqual({ ...delegation, active_epoch_no: undefined }, {
          cert_index: 1,
          active_epoch_no: undefined,
          stake_address: { view: rewardAddress },
          pool_hash: { view: poolId },
        });
        assert.ok(delegation.active_epoch_no >= 2, "active two epochs after the current one");
      });

      await t.step("ledger state and chain sync show the credential and its certificates", async () => {
        const hash = stakeKey.to_public().hash().to_hex();
        const summary = (await s.rpc("queryLedgerState/rewardAccountSummaries", { keys: [hash] })).result;
        const [entry] = Object.values(summary) as Array<{ stakePool?: { id: string }; deposit: unknown }>;
        assert.equal(entry?.stakePool?.id, poolId, JSON.stringify(summary));
        const seen = await s.syncUntil(register.id);
        assert.deepEqual(seen.certificates, [
          {
            type: "stakeCredentialRegistration",
            credential: hash,
            from: "verificationKey",
            deposit: { ada: { lovelace: Number(keyDeposit) } },
          },
          { type: "stakeDelegation", credential: hash, from: "verificationKey", stakePool: { id: poolId } },
        ]);
      });

      await t.step("registering the credential again: 3145, UTxO set unchanged", async () => {
        const before = await s.utxosOf(wallet!.address);
        const again = withCertificates(second!, [registration()]);
        await assert.rejects(
          s.client.submitTransaction(again.cbor),
          (e: { code?: number; data?: unknown }) => {
            assert.equal(e.code, 3145);
            assert.deepEqual(e.data, {
              knownCredential: stakeKey.to_public().hash().to_hex(),
              from: "verificationKey",
            });
            return true;
          },
        );
        await sleep(2_500); // two blocks later
        assert.deepEqual(await s.utxosOf(wallet!.address), before);
      });

      await t.step(
        "deregistration refunds the deposit; stake-account: not registered, not delegated",
        async () => {
          const leave = withCertificates(third!, [
            CSL.Certificate.new_unreg_cert(
              CSL.StakeDeregistration.new_with_explicit_refund(stakeCredential, big(keyDeposit)),
            ),
          ]);
          assert.equal(await s.client.submitTransaction(leave.cbor), leave.id);
          await s.confirmed(leave.id);
          const change = (await s.utxosOf(wallet!.address)).find((u) => u.transaction.id === leave.id);
          const explorer = await s.get(`/v2/explorer/mainnet/tx/${leave.id}`);
          // deposits paid and refunds apart (never a negative deposit): their difference is db-sync's net
          assert.equal(explorer.body.deposit, "0");
          assert.equal(explorer.body.depositRefund, String(keyDeposit));
          assert.equal(
            BigInt(change!.value.ada.lovelace),
            BigInt(third!.value.ada.lovelace) + keyDeposit - BigInt(explorer.body.fee),
            "the refund comes back as change",
          );
          const account = await s.get(`/api/public/stake-account?address=${rewardAddress}`);
          assert.equal(account.body.registered, false);
          assert.equal(account.body.delegatedPoolId, null);
        },
      );
    } finally {
      await s.close();
    }
  },
});
