/**
 * Another Cardano library's transactions against the devnet: cardano-serialization-lib's TransactionBuilder
 * (its own coin selection, fee and deposit arithmetic), configured from the protocol parameters the service
 * serves (Ogmios' shape), builds a payment, a native-script mint and a Conway stake registration + delegation;
 * each is accepted by the devnet and lands in the next block.
 */
import assert from "node:assert/strict";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { Effect, Either } from "effect";
import { toOgmiosProtocolParameters } from "@src/domain/protocol_parameters.ts";
import { openDevnet, walletUtxos } from "../support/devnet_tx.ts";

const big = (n: bigint | number | string) => CSL.BigNum.from_str(String(n));
const ratio = (text: string) => {
  const [n, d] = text.split("/");
  return CSL.UnitInterval.new(big(n!), big(d!));
};

Deno.test("transactions built with cardano-serialization-lib are accepted by the devnet", async (t) => {
  const f = await openDevnet("devnet_csl");
  try {
    const pp = toOgmiosProtocolParameters(f.params.row);
    const config = CSL.TransactionBuilderConfigBuilder.new()
      .fee_algo(CSL.LinearFee.new(big(pp.minFeeCoefficient), big(pp.minFeeConstant.ada.lovelace)))
      .coins_per_utxo_byte(big(pp.minUtxoDepositCoefficient))
      .pool_deposit(big(pp.stakePoolDeposit.ada.lovelace))
      .key_deposit(big(pp.stakeCredentialDeposit.ada.lovelace))
      .max_value_size(pp.maxValueSize.bytes)
      .max_tx_size(pp.maxTransactionSize.bytes)
      .ex_unit_prices(
        CSL.ExUnitPrices.new(ratio(pp.scriptExecutionPrices.memory), ratio(pp.scriptExecutionPrices.cpu)),
      )
      .ref_script_coins_per_byte(CSL.UnitInterval.new(big(pp.minFeeReferenceScripts.base), big(1)))
      .build();
    const wallet = f.devnet.wallets[0]!;
    const key = CSL.PrivateKey.from_bech32(wallet.signingKey);
    const address = CSL.Address.from_bech32(wallet.address);
    const utxos = await walletUtxos(f, wallet.address);

    const builderWith = (utxoIndex: number) => {
      const builder = CSL.TransactionBuilder.new(config);
      const u = utxos[utxoIndex]!;
      builder.add_regular_input(
        address,
        CSL.TransactionInput.from_bytes(u.input.to_cbor_bytes()),
        CSL.Value.new(big(u.output.amount().coin())),
      );
      return builder;
    };
    const signAndSubmit = async (builder: CSL.TransactionBuilder, extraKeys: Array<CSL.PrivateKey> = []) => {
      builder.add_change_if_needed(address);
      const fixed = CSL.FixedTransaction.from_bytes(builder.build_tx().to_bytes());
      fixed.sign_and_add_vkey_signature(key);
      for (const k of extraKeys) fixed.sign_and_add_vkey_signature(k);
      const result = await Effect.runPromise(Effect.either(f.devnet.submit(fixed.to_hex())));
      assert.ok(Either.isRight(result), Either.isLeft(result) ? result.left.message : "");
      assert.equal(result.right.transaction.id, fixed.transaction_hash().to_hex());
      const block = await Effect.runPromise(f.devnet.produceBlock);
      assert.deepEqual(block.txIds, [result.right.transaction.id]);
    };

    await t.step("a payment", async () => {
      const builder = builderWith(0);
      builder.add_output(
        CSL.TransactionOutput.new(
          CSL.Address.from_bech32(f.devnet.wallets[1]!.address),
          CSL.Value.new(big(12_345_678)),
        ),
      );
      await signAndSubmit(builder);
    });

    await t.step("a native-script mint", async () => {
      const builder = builderWith(1);
      const policy = CSL.NativeScript.new_script_pubkey(CSL.ScriptPubkey.new(key.to_public().hash()));
      builder.add_mint_asset_and_output_min_required_coin(
        policy,
        CSL.AssetName.new(new TextEncoder().encode("CSL")),
        CSL.Int.new_i32(500),
        CSL.TransactionOutputBuilder.new().with_address(address).next(),
      );
      await signAndSubmit(builder);
    });

    await t.step("a stake registration and delegation (Conway certificate with deposit)", async () => {
      const [pool] = await Effect.runPromise(f.chain.sql<{ hash: string }>`
        select encode(h.hash_raw, 'hex') as hash from pool_hash h
        where exists (select 1 from pool_update u where u.hash_id = h.id)
          and not exists (select 1 from pool_retire r where r.hash_id = h.id)
        order by h.id limit 1`);
      const stakeKey = CSL.PrivateKey.generate_ed25519();
      const credential = CSL.Credential.from_keyhash(stakeKey.to_public().hash());
      const certs = CSL.CertificatesBuilder.new();
      certs.add(CSL.Certificate.new_stake_registration_and_delegation(
        CSL.StakeRegistrationAndDelegation.new(
          credential,
          CSL.Ed25519KeyHash.from_hex(pool!.hash),
          big(pp.stakeCredentialDeposit.ada.lovelace),
        ),
      ));
      const builder = builderWith(2);
      builder.set_certs_builder(certs);
      await signAndSubmit(builder, [stakeKey]);
    });
  } finally {
    await f.close();
  }
});
