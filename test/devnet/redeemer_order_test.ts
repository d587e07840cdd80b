/**
 * Redeemer pointers index the ledger's orders. Withdrawals are a map keyed by reward account, whose Ord puts
 * script credentials before key credentials: a transaction withdrawing zero from a key account and from a
 * Plutus-locked account points its `withdraw` redeemer at index 0 (the script account), though by address bytes
 * the key account (header e1) sorts first. Index 1 is refused with 3109 naming the script's account.
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { Effect } from "effect";
import { buildTx, openDevnet, walletUtxos } from "../support/devnet_tx.ts";
import { expectAccepted, expectRejection } from "../support/devnet_rejection.ts";
import { certs } from "../support/governance_tx.ts";

const alwaysSucceeds = CML.PlutusV2Script.from_cbor_hex("4e4d01000033222220051200120011");

Deno.test("devnet redeemer pointers follow the ledger's orders", async (t) => {
  const f = await openDevnet("devnet_redeemer_order");
  const alice = f.keys[0]!;
  try {
    const [u1, u2, u3, collateral] = await walletUtxos(f, alice.address);
    const stakeKey = CML.PrivateKey.from_normal_bytes(new Uint8Array(32).fill(41));
    const keyCredential = CML.Credential.new_pub_key(stakeKey.to_public().hash());
    const scriptCredential = CML.Credential.new_script(alwaysSucceeds.hash());
    const keyAccount = CML.RewardAddress.new(1, keyCredential);
    const scriptAccount = CML.RewardAddress.new(1, scriptCredential);
    assert.ok(
      keyAccount.to_address().to_hex() < scriptAccount.to_address().to_hex(),
      "by address bytes the key account comes first",
    );

    // both registered (the pre-Conway certificate needs no witness, so the script runs nowhere yet); the key
    // account delegates its vote, without which it may not withdraw (3150)
    await expectAccepted(
      f,
      buildTx(f.params, {
        inputs: [u1!],
        outputs: [],
        balanceAdjust: 2n * f.params.keyDeposit,
        signers: [alice.privateKey, stakeKey],
        body: certs(
          CML.Certificate.new_stake_registration(scriptCredential),
          CML.Certificate.new_stake_registration(keyCredential),
          CML.Certificate.new_vote_deleg_cert(keyCredential, CML.DRep.new_always_abstain()),
        ),
      }),
    );
    await Effect.runPromise(f.devnet.produceBlock);

    const units = { mem: 1_000_000n, steps: 500_000_000n };
    const withdrawBoth = (input: typeof u2, pointer: bigint) => {
      const redeemers = () => {
        const list = CML.LegacyRedeemerList.new();
        list.add(CML.LegacyRedeemer.new(
          CML.RedeemerTag.Reward,
          pointer,
          CML.PlutusData.from_cbor_hex("d87980"),
          CML.ExUnits.new(units.mem, units.steps),
        ));
        return CML.Redeemers.new_arr_legacy_redeemer(list);
      };
      const languages = CML.LanguageList.new();
      languages.add(CML.Language.PlutusV2);
      return buildTx(f.params, {
        inputs: [input!],
        outputs: [],
        signers: [alice.privateKey, stakeKey],
        extraFee: (units.mem * 577n) / 10_000n + (units.steps * 721n) / 10_000_000n + 2n,
        body: (body) => {
          const withdrawals = CML.MapRewardAccountToCoin.new();
          withdrawals.insert(keyAccount, 0n);
          withdrawals.insert(scriptAccount, 0n);
          body.set_withdrawals(withdrawals);
          const c = CML.TransactionInputList.new();
          c.add(collateral!.input);
          body.set_collateral_inputs(c);
          body.set_script_data_hash(
            CML.calc_script_data_hash(redeemers(), CML.PlutusDataList.new(), f.params.costModels, languages)!,
          );
        },
        witnesses: (set) => {
          const scripts = CML.PlutusV2ScriptList.new();
          scripts.add(alwaysSucceeds);
          set.set_plutus_v2_scripts(scripts);
          set.set_redeemers(redeemers());
        },
      });
    };

    await t.step("the script account is withdraw index 0: evaluated, accepted, recorded so", async () => {
      const tx = withdrawBoth(u2, 0n);
      const [evaluation, ...more] = await Effect.runPromise(f.devnet.evaluate(tx.to_cbor_hex()));
      assert.equal(more.length, 0);
      assert.deepEqual(evaluation!.validator, { purpose: "withdraw", index: 0 });
      const id = await expectAccepted(f, tx);
      await Effect.runPromise(f.devnet.produceBlock);
      const rows = await Effect.runPromise(f.chain.sql<{ purpose: string; index: number; script: string }>`
        select r.purpose::text as purpose, r.index, encode(r.script_hash, 'hex') as script
        from redeemer r join tx t on t.id = r.tx_id where t.hash = decode(${id}, 'hex')`);
      assert.deepEqual(rows, [{ purpose: "reward", index: 0, script: alwaysSucceeds.hash().to_hex() }]);
    });

    await t.step("index 1 (the key account) is 3109 for the script's account", async () => {
      const error = await expectRejection(f, withdrawBoth(u3, 1n), 3109);
      assert.deepEqual(
        (error.data as { missingRedeemers: ReadonlyArray<unknown> }).missingRedeemers,
        [{ purpose: "withdraw", rewardAccount: scriptAccount.to_address().to_bech32() }],
      );
    });
  } finally {
    await f.close();
  }
});
