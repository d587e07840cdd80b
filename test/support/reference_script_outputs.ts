/**
 * Outputs carrying big reference scripts, for tests of reference-script sizes, fees and block limits: a native
 * script of many key clauses (native scripts are always well-formed, and nothing runs it), placed in outputs
 * one transaction each (a transaction is at most 16 KiB), chained through the mempool; when the mempool is full
 * (two blocks' worth) a block is made so the next one gets in.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { Effect, Fiber } from "effect";
import type { WrittenBlock } from "@src/devnet/blocks/block_writer.ts";
import type { WalletKey } from "@src/devnet/wallets/wallets.ts";
import { buildTx, type DevnetFixture, type Utxo } from "./devnet_tx.ts";

/** `all` of `clauses` distinct key clauses: 32 bytes each, plus 5 bytes of header past 255 clauses. */
export const bulkyNativeScript = (clauses: number): CML.NativeScript => {
  const list = CML.NativeScriptList.new();
  for (let i = 0; i < clauses; i++) {
    const hash = new Uint8Array(28);
    new DataView(hash.buffer).setUint32(0, i + 1);
    list.add(CML.NativeScript.new_script_pubkey(CML.Ed25519KeyHash.from_raw_bytes(hash)));
  }
  return CML.NativeScript.new_script_all(list);
};

export interface ReferenceScriptOutputs {
  readonly outputs: ReadonlyArray<Utxo>;
  /** The last transaction's change. */
  readonly change: Utxo;
  readonly txIds: ReadonlyArray<string>;
  /** The blocks produced until the mempool was empty. */
  readonly blocks: ReadonlyArray<WrittenBlock>;
}

/** `count` outputs at the wallet's address, each with `script` as its reference script, then blocks. */
export const createReferenceScriptOutputs = async (
  f: DevnetFixture,
  wallet: WalletKey,
  fuel: Utxo,
  script: CML.NativeScript,
  count: number,
): Promise<ReferenceScriptOutputs> => {
  const address = CML.Address.from_bech32(wallet.address);
  const carrier = (coin: bigint) =>
    CML.TransactionOutput.new(
      address,
      CML.Value.from_coin(coin),
      undefined,
      CML.Script.new_native(CML.NativeScript.from_cbor_bytes(script.to_cbor_bytes())),
    );
  const minimum = CML.min_ada_required(carrier(100_000_000n), f.params.coinsPerUtxoByte);
  const outputs: Array<Utxo> = [];
  const txIds: Array<string> = [];
  const blocks: Array<WrittenBlock> = [];
  let change = fuel;
  for (let i = 0; i < count; i++) {
    const tx = buildTx(f.params, {
      inputs: [change],
      outputs: [carrier(minimum)],
      signers: [wallet.privateKey],
    });
    const id = CML.hash_transaction(tx.body());
    const submission = Effect.runFork(Effect.either(f.devnet.submit(tx.to_cbor_hex())));
    for (let polls = 0; !submission.unsafePoll(); polls++) {
      if (polls > 1_000) throw new Error(`reference script output ${i}: no answer`);
      if (f.devnet.waiting().includes(id.to_hex())) {
        blocks.push(await Effect.runPromise(f.devnet.produceBlock));
      } else await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const result = await Effect.runPromise(Fiber.join(submission));
    if (result._tag === "Left") throw new Error(`reference script output ${i}: ${result.left.message}`);
    txIds.push(id.to_hex());
    outputs.push({ input: CML.TransactionInput.new(id, 0n), output: tx.body().outputs().get(0) });
    change = { input: CML.TransactionInput.new(id, 1n), output: tx.body().outputs().get(1) };
  }
  while (f.devnet.mempool().length > 0) {
    if (blocks.length > count) throw new Error("the mempool does not drain");
    blocks.push(await Effect.runPromise(f.devnet.produceBlock));
  }
  return { outputs, change, txIds, blocks };
};
