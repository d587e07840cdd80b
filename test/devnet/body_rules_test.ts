/**
 * Rules on what a transaction itself holds, each with a deliberately broken transaction answered with a node's
 * error while the UTxO set and the mempool stay as they were: metadata texts and byte strings of at most 64
 * bytes (3108, though CML will not even decode longer ones), a non-empty input set (3121), no ADA in the mint
 * (a node cannot decode such a mint either: -32602, never 3127), Byron outputs' attributes of at most 64 bytes
 * (3126).
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { blake2b } from "@noble/hashes/blake2.js";
import { hex } from "@scure/base";
import { ogmiosOutput } from "@src/devnet/decoding/cml_conversions.ts";
import { buildTx, openDevnet, payTo, walletUtxos } from "../support/devnet_tx.ts";
import { expectAccepted, expectRejection, plainJson } from "../support/devnet_rejection.ts";

const ada = 1_000_000n;

/** CBOR of a text or byte string of `n` bytes (n < 256). */
const cborString = (major: 2 | 3, n: number, fill: number) => [
  (major << 5) | (n < 24 ? n : 24),
  ...(n < 24 ? [] : [n]),
  ...new Uint8Array(n).fill(fill),
];

Deno.test("devnet rules on a transaction's own contents", async (t) => {
  const f = await openDevnet("devnet_body_rules");
  const [alice, bob] = [f.keys[0]!, f.keys[1]!];
  try {
    const [fuel, spare] = await walletUtxos(f, alice.address);

    /**
     * A payment whose auxiliary data are the given bytes, written by hand (CML refuses to build long metadata):
     * the body commits to their hash, the fee covers them.
     */
    const withRawMetadata = (auxiliary: Uint8Array) => {
      const tx = buildTx(f.params, {
        inputs: [fuel!],
        outputs: [payTo(bob.address, 5n * ada)],
        signers: [alice.privateKey],
        fee: 1n * ada,
        body: (b) =>
          b.set_auxiliary_data_hash(CML.AuxiliaryDataHash.from_raw_bytes(blake2b(auxiliary, { dkLen: 32 }))),
      });
      const raw = new Uint8Array([
        0x84,
        ...tx.body().to_cbor_bytes(),
        ...tx.witness_set().to_cbor_bytes(),
        0xf5,
        ...auxiliary,
      ]);
      return hex.encode(raw);
    };
    /** `{674: metadatum}`, a Shelley-era metadata map. */
    const label674 = (metadatum: ReadonlyArray<number>) =>
      new Uint8Array([0xa1, 0x19, 0x02, 0xa2, ...metadatum]);

    await t.step("a metadata text over 64 bytes is 3108 InvalidMetadata, with no data", async () => {
      const error = await expectRejection(f, withRawMetadata(label674(cborString(3, 65, 0x78))), 3108);
      assert.equal(error.data, undefined);
      assert.ok(!("data" in error));
    });

    await t.step("so is a byte string over 64 bytes deep in a list, or a map key", async () => {
      await expectRejection(
        f,
        withRawMetadata(label674([0x82, 0x01, 0x81, ...cborString(2, 65, 1)])),
        3108,
      );
      await expectRejection(f, withRawMetadata(label674([0xa1, ...cborString(2, 100, 2), 0x00])), 3108);
    });

    await t.step("in Alonzo-shaped auxiliary data (tag 259) too", async () => {
      const alonzo = new Uint8Array([0xd9, 0x01, 0x03, 0xa1, 0x00, ...label674(cborString(3, 65, 0x61))]);
      await expectRejection(f, withRawMetadata(alonzo), 3108);
    });

    await t.step("a broken transaction that also has long metadata stays -32602", async () => {
      const good = withRawMetadata(label674(cborString(3, 65, 0x78)));
      // the body's input list claims one more input than it holds
      await expectRejection(f, good.replace("d9010281", "d9010282"), -32602);
    });

    await t.step(
      "64 bytes exactly are accepted (and written by hand, as the ledger reads them)",
      async () => {
        const id = await expectAccepted(f, withRawMetadata(label674(cborString(3, 64, 0x78))));
        assert.equal(id.length, 64);
      },
    );

    await t.step("an empty input set is 3121 EmptyInputSet", async () => {
      const outputs = CML.TransactionOutputList.new();
      outputs.add(payTo(bob.address, 5n * ada));
      const body = CML.TransactionBody.new(CML.TransactionInputList.new(), outputs, 200_000n);
      const witnesses = CML.TransactionWitnessSet.new();
      const vkeys = CML.VkeywitnessList.new();
      vkeys.add(CML.make_vkey_witness(CML.hash_transaction(body), alice.privateKey));
      witnesses.set_vkeywitnesses(vkeys);
      const error = await expectRejection(f, CML.Transaction.new(body, witnesses, true), 3121);
      assert.ok(!("data" in error));
    });

    await t.step(
      "minting ADA cannot be written: the empty policy id fails decoding (-32602), as on a node",
      async () => {
        const policy = CML.NativeScript.new_script_pubkey(alice.privateKey.to_public().hash());
        const tx = buildTx(f.params, {
          inputs: [spare!],
          outputs: [],
          signers: [alice.privateKey],
          body: (b) => {
            const mint = CML.Mint.new();
            mint.set(policy.hash(), CML.AssetName.from_str(""), 1n);
            b.set_mint(mint);
          },
        });
        const policyHex = policy.hash().to_hex();
        const cbor = tx.to_cbor_hex();
        assert.ok(cbor.includes(`581c${policyHex}`));
        await expectRejection(f, cbor.replace(`581c${policyHex}`, "40"), -32602);
      },
    );

    await t.step("a Byron output whose derivation path is over 64 bytes is 3126", async () => {
      const byron = (pathBytes: number) =>
        CML.AddressContent.new(
          CML.AddressId.from_raw_bytes(new Uint8Array(28).fill(9)),
          CML.AddrAttributes.new_bootstrap_era(
            CML.HDAddressPayload.from_cbor_bytes(
              new Uint8Array([0x58, pathBytes, ...new Uint8Array(pathBytes)]),
            ),
            CML.ProtocolMagic.new(764824073),
          ),
          CML.ByronAddrType.PublicKey,
        ).to_address().to_address();
      const output = payTo(byron(65), 5n * ada);
      const tx = buildTx(f.params, { inputs: [spare!], outputs: [output], signers: [alice.privateKey] });
      const error = await expectRejection(f, tx, 3126);
      assert.deepEqual(plainJson(error.data), plainJson({ bootstrapOutputs: [ogmiosOutput(output)] }));
      const fits = buildTx(f.params, {
        inputs: [spare!],
        outputs: [payTo(byron(64), 5n * ada)],
        signers: [alice.privateKey],
      });
      await expectAccepted(f, fits);
    });
  } finally {
    await f.close();
  }
});
