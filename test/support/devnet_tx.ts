/**
 * Building real, signed transactions with CML for the devnet tests: a devnet on a seeded test chain, the
 * wallets' unspent outputs, and a balanced-transaction builder that computes the fee as the ledger does, so a
 * test breaks exactly one rule on purpose.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { Effect } from "effect";
import { type Devnet, makeDevnet } from "@src/devnet/devnet.ts";
import { deriveWallets, loadOrCreateSeed, type WalletKey } from "@src/devnet/wallets/wallets.ts";
import { type LedgerParams, readLedgerParams } from "@src/devnet/rules/ledger_view.ts";
import { unspentOutputs } from "@src/queries/utxo.ts";
import { outputFromRow } from "@src/devnet/rules/ledger_view.ts";
import { fundFromGenesis } from "@src/devnet/wallets/faucet.ts";
import { createTestChain, type TestChain } from "./demo_chain.ts";

export interface DevnetFixture {
  readonly chain: TestChain;
  readonly devnet: Devnet;
  readonly keys: ReadonlyArray<WalletKey>;
  readonly params: LedgerParams;
  readonly dataDir: string;
  readonly close: () => Promise<void>;
}

export const openDevnet = async (label: string): Promise<DevnetFixture> => {
  const chain = await createTestChain(label, "mainnet");
  const dataDir = await Deno.makeTempDir({ prefix: "devnet-" });
  const devnet = await Effect.runPromise(makeDevnet(chain.sql, { network: "mainnet", dataDir }));
  const keys = deriveWallets(await loadOrCreateSeed(dataDir), "mainnet", 1);
  const params = await Effect.runPromise(readLedgerParams(chain.sql));
  return {
    chain,
    devnet,
    keys,
    params,
    dataDir,
    close: async () => {
      await chain.close();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
};

export interface Utxo {
  readonly input: CML.TransactionInput;
  readonly output: CML.TransactionOutput;
}

/** A wallet's unspent outputs on chain (not counting the mempool), largest first. */
export const walletUtxos = async (f: DevnetFixture, address: string): Promise<Array<Utxo>> => {
  const rows = await Effect.runPromise(unspentOutputs(f.chain.sql, { addresses: [address] }, "enable"));
  return rows.map((row) => ({
    input: CML.TransactionInput.new(CML.TransactionHash.from_hex(row.txHash), BigInt(row.index)),
    output: outputFromRow(row),
  })).sort((a, b) => Number(b.output.amount().coin() - a.output.amount().coin()));
};

export interface TxParts {
  readonly inputs: ReadonlyArray<Utxo>;
  readonly outputs: ReadonlyArray<CML.TransactionOutput>;
  /** Change goes here (the first input's address by default). */
  readonly changeAddress?: CML.Address;
  /** Fixed fee instead of the computed minimum. */
  readonly fee?: bigint;
  /** Extra lovelace taken out of the change (deposits) or put in (withdrawals, refunds). */
  readonly balanceAdjust?: bigint;
  readonly body?: (body: CML.TransactionBody) => void;
  readonly witnesses?: (set: CML.TransactionWitnessSet, bodyHash: CML.TransactionHash) => void;
  readonly auxiliary?: CML.AuxiliaryData;
  readonly signers: ReadonlyArray<CML.PrivateKey>;
  readonly isValid?: boolean;
  /** Extra fee added to the minimum (scripts' execution units). */
  readonly extraFee?: bigint;
  /** Ref script bytes for the fee. */
  readonly referenceScriptSize?: bigint;
}

const inputList = (utxos: ReadonlyArray<Utxo>) => {
  const list = CML.TransactionInputList.new();
  for (const u of utxos) list.add(u.input);
  return list;
};

/** Builds and signs a transaction; the change output balances it unless `fee` breaks that on purpose. */
export const buildTx = (params: LedgerParams, parts: TxParts): CML.Transaction => {
  const make = (fee: bigint) => {
    const outputs = CML.TransactionOutputList.new();
    for (const o of parts.outputs) outputs.add(o);
    let change = parts.inputs.reduce((s, u) => s.checked_add(u.output.amount()), CML.Value.zero());
    for (const o of parts.outputs) change = change.clamped_sub(o.amount());
    const coin = change.coin() - fee - (parts.balanceAdjust ?? 0n);
    if (coin > 0n) {
      outputs.add(CML.TransactionOutput.new(
        parts.changeAddress ?? parts.inputs[0]!.output.address(),
        CML.Value.new(coin, change.multi_asset()),
      ));
    }
    const body = CML.TransactionBody.new(inputList(parts.inputs), outputs, fee);
    parts.body?.(body);
    // wasm objects passed by value are moved: give each round its own copy
    const auxiliary = parts.auxiliary && CML.AuxiliaryData.from_cbor_bytes(parts.auxiliary.to_cbor_bytes());
    if (auxiliary) body.set_auxiliary_data_hash(CML.hash_auxiliary_data(auxiliary));
    const hash = CML.hash_transaction(body);
    const set = CML.TransactionWitnessSet.new();
    parts.witnesses?.(set, hash);
    if (parts.signers.length > 0) {
      const vkeys = CML.VkeywitnessList.new();
      for (const sk of parts.signers) vkeys.add(CML.make_vkey_witness(hash, sk));
      set.set_vkeywitnesses(vkeys);
    }
    return CML.Transaction.new(body, set, parts.isValid ?? true, auxiliary);
  };
  if (parts.fee !== undefined) return make(parts.fee);
  let fee = 200_000n;
  for (let round = 0; round < 3; round++) {
    fee = CML.min_fee(make(fee), params.linearFee, params.prices, parts.referenceScriptSize ?? 0n) +
      (parts.extraFee ?? 0n);
  }
  return make(fee);
};

export const payTo = (address: string | CML.Address, lovelace: bigint, assets?: CML.MultiAsset) =>
  CML.TransactionOutput.new(
    typeof address === "string" ? CML.Address.from_bech32(address) : address,
    assets ? CML.Value.new(lovelace, assets) : CML.Value.from_coin(lovelace),
  );

export const submit = (f: DevnetFixture, tx: CML.Transaction) =>
  Effect.runPromise(Effect.either(f.devnet.submit(tx.to_cbor_hex())));

/**
 * Pays `lovelace` from the demo chain's genesis outputs to an address in a block of its own (the faucet's way), for
 * amounts the wallets do not hold: governance deposits, a whale's stake. Gives the output.
 */
export const fundAddress = async (
  f: DevnetFixture,
  address: CML.Address,
  lovelace: bigint,
): Promise<Utxo> => {
  const block = await Effect.runPromise(
    fundFromGenesis(f.chain.sql, [{ address: address.to_bech32(), lovelace }], {
      networkId: 1,
      slot: 0,
      params: f.params,
    }),
  );
  return {
    input: CML.TransactionInput.new(CML.TransactionHash.from_hex(block.txIds[0]!), 0n),
    output: payTo(address, lovelace),
  };
};

/** Funds a test key's enterprise address (see fundAddress). */
export const fundKey = (f: DevnetFixture, k: CML.PrivateKey, lovelace: bigint): Promise<Utxo> =>
  fundAddress(
    f,
    CML.EnterpriseAddress.new(1, CML.Credential.new_pub_key(k.to_public().hash())).to_address(),
    lovelace,
  );
