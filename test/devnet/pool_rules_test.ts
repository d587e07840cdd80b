/**
 * Pool certificates as the ledger's POOL rule checks them, each with a deliberately broken transaction (the UTxO
 * set and the mempool unchanged after the refusal): a reward account on the other network is 3124 naming the
 * pool (Ogmios' stakePoolCertificate entity); a cost under minPoolCost is 3143; a metadata hash over 32
 * bytes is 3144 (CML will not decode it; the devnet reads the bytes as the ledger does); a retirement of an
 * unknown pool is 3140; one for the current epoch or earlier, or more than eMax (18) epochs ahead, is 3142.
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { blake2b } from "@noble/hashes/blake2.js";
import { hex } from "@scure/base";
import { Effect } from "effect";
import { buildTx, openDevnet, walletUtxos } from "../support/devnet_tx.ts";
import { expectAccepted, expectRejection } from "../support/devnet_rejection.ts";

const ada = 1_000_000n;
const key = (byte: number) => CML.PrivateKey.from_normal_bytes(new Uint8Array(32).fill(byte));
const certs = (...list: Array<CML.Certificate>) => (b: CML.TransactionBody) => {
  const l = CML.CertificateList.new();
  for (const c of list) l.add(c);
  b.set_certs(l);
};
const metadataHash = "aa".repeat(32);
const registration = (cold: CML.PrivateKey, owner: CML.PrivateKey, cost: bigint, rewardNetwork = 1) => {
  const owners = CML.Ed25519KeyHashList.new();
  owners.add(owner.to_public().hash());
  return CML.Certificate.new_pool_registration(CML.PoolParams.new(
    cold.to_public().hash(),
    CML.VRFKeyHash.from_raw_bytes(new Uint8Array(32).fill(cold.to_public().hash().to_raw_bytes()[0]!)),
    0n,
    cost,
    CML.UnitInterval.new(1n, 100n),
    CML.RewardAddress.new(rewardNetwork, CML.Credential.new_pub_key(owner.to_public().hash())),
    owners,
    CML.RelayList.new(),
    CML.PoolMetadata.new(
      CML.Url.from_cbor_hex("6968747470733a2f2f78"),
      CML.PoolMetadataHash.from_hex(metadataHash),
    ),
  ));
};

Deno.test("devnet pool certificate rules", async (t) => {
  const f = await openDevnet("devnet_pool_rules");
  const alice = f.keys[0]!;
  const [cold, owner, stranger] = [key(41), key(42), key(43)];
  const poolId = cold.to_public().hash().to_bech32("pool");
  const epoch = f.params.epoch;
  try {
    let [fuel] = await walletUtxos(f, alice.address);
    const withCerts = (cert: CML.Certificate, signers: ReadonlyArray<CML.PrivateKey>, deposit = 0n) =>
      buildTx(f.params, {
        inputs: [fuel!],
        outputs: [],
        signers: [alice.privateKey, ...signers],
        balanceAdjust: deposit,
        body: certs(cert),
      });
    const accept = async (tx: CML.Transaction) => {
      const id = await expectAccepted(f, tx);
      await Effect.runPromise(f.devnet.produceBlock);
      fuel = {
        input: CML.TransactionInput.new(CML.TransactionHash.from_hex(id), 0n),
        output: tx.body().outputs().get(0),
      };
    };
    const retire = (pool: CML.PrivateKey, at: number) =>
      withCerts(CML.Certificate.new_pool_retirement(pool.to_public().hash(), BigInt(at)), [pool]);

    await t.step("a reward account on the testnet is 3124 NetworkMismatch naming the pool", async () => {
      const error = await expectRejection(
        f,
        withCerts(registration(cold, owner, 170n * ada, 0), [cold, owner], f.params.poolDeposit),
        3124,
      );
      assert.deepEqual(error.data, {
        expectedNetwork: "mainnet",
        discriminatedType: "stakePoolCertificate",
        invalidEntities: [poolId],
      });
    });

    await t.step("a pool cost under minPoolCost (170 ADA) is 3143 StakePoolCostTooLow", async () => {
      const error = await expectRejection(
        f,
        withCerts(registration(cold, owner, 170n * ada - 1n), [cold, owner], f.params.poolDeposit),
        3143,
      );
      assert.deepEqual(error.data, {
        minimumStakePoolCost: { ada: { lovelace: 170n * ada } },
        declaredStakePoolCost: { ada: { lovelace: 170n * ada - 1n } },
      });
      await accept(withCerts(registration(cold, owner, 170n * ada), [cold, owner], f.params.poolDeposit));
    });

    await t.step(
      "a metadata hash of 33 bytes is 3144 (the transaction written by hand: CML refuses it)",
      async () => {
        const other = key(44);
        const tx = withCerts(registration(other, owner, 200n * ada), [], f.params.poolDeposit);
        const bodyHex = tx.body().to_cbor_hex();
        assert.equal(bodyHex.split(`5820${metadataHash}`).length, 2);
        const body = hex.decode(bodyHex.replace(`5820${metadataHash}`, `5821${metadataHash}aa`));
        const bodyHash = CML.TransactionHash.from_raw_bytes(blake2b(body, { dkLen: 32 }));
        const witnesses = CML.TransactionWitnessSet.new();
        const vkeys = CML.VkeywitnessList.new();
        for (const k of [alice.privateKey, other, owner]) vkeys.add(CML.make_vkey_witness(bodyHash, k));
        witnesses.set_vkeywitnesses(vkeys);
        const raw = hex.encode(new Uint8Array([0x84, ...body, ...witnesses.to_cbor_bytes(), 0xf5, 0xf6]));
        const error = await expectRejection(f, raw, 3144);
        assert.deepEqual(error.data, {
          infringingStakePool: { id: other.to_public().hash().to_bech32("pool") },
          computedMetadataHashSize: { bytes: 33 },
        });
      },
    );

    await t.step("retiring a pool that is not registered is 3140 UnknownStakePool", async () => {
      const error = await expectRejection(f, retire(stranger, epoch + 1), 3140);
      assert.deepEqual(error.data, { unknownStakePool: stranger.to_public().hash().to_bech32("pool") });
    });

    await t.step("retiring in the current epoch or before is 3142", async () => {
      for (const at of [epoch, epoch - 1]) {
        const error = await expectRejection(f, retire(cold, at), 3142);
        assert.deepEqual(error.data, {
          currentEpoch: epoch,
          declaredEpoch: at,
          firstInvalidEpoch: epoch + 18,
        });
      }
    });

    await t.step(
      "retiring more than eMax (18) epochs ahead is 3142; exactly 18 ahead is accepted",
      async () => {
        const error = await expectRejection(f, retire(cold, epoch + 19), 3142);
        assert.deepEqual(error.data, {
          currentEpoch: epoch,
          declaredEpoch: epoch + 19,
          firstInvalidEpoch: epoch + 18,
        });
        await accept(retire(cold, epoch + 18));
        const [row] = await Effect.runPromise(f.chain.sql<{ epoch: number }>`
        select r.retiring_epoch as epoch from pool_retire r join pool_hash h on h.id = r.hash_id
        where h.view = ${poolId}`);
        assert.equal(row?.epoch, epoch + 18);
      },
    );
  } finally {
    await f.close();
  }
});
