/**
 * A payment the way a Mesh dApp makes one over a `BlockfrostProvider` (either of its forms, either of the two
 * that people install: `@meshsdk/core`'s re-export, 1.9.0-beta.101 beside core 1.9.1, or the `@meshsdk/provider`
 * package's own latest, 1.8.14; with Mesh's builder and wallet from `@meshsdk/core`): the provider reads
 * the protocol parameters, a `MeshWallet` holding the devnet wallet's key (`cli` form: CBOR of the raw ed25519
 * key) reads its UTxOs through the provider, `MeshTxBuilder` balances the payment, the wallet signs, the provider
 * submits, and `onTxConfirmed` says when it is in a block with a block after it. Shared by the URL-form test
 * (in process) and the key-form client (mesh_key_form_client.ts, a process behind a proxy).
 */
import { createRequire } from "node:module";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import {
  type BlockfrostProvider as CoreBlockfrostProvider,
  type IFetcher,
  MeshTxBuilder,
  MeshWallet,
} from "@meshsdk/core";
import type { BlockfrostProvider as DeclaredBlockfrostProvider } from "@meshsdk/provider";

/**
 * The provider of the `@meshsdk/provider` package (package.json's, npm's `latest`), not the one `@meshsdk/core`
 * re-exports from its own nested copy. Its CommonJS build: the ES build imports a libsodium module its package
 * does not ship.
 */
export const { BlockfrostProvider: DeclaredProvider } = createRequire(import.meta.url)(
  "@meshsdk/provider",
) as {
  BlockfrostProvider: typeof DeclaredBlockfrostProvider;
};

export interface MeshPaymentResult {
  /** What the provider read: the wallet's address and UTxOs (`hash#index:lovelace`) and the fee parameters. */
  readonly walletAddress: string;
  readonly utxos: ReadonlyArray<string>;
  readonly minFeeA: number;
  readonly minFeeB: number;
  readonly coinsPerUtxoSize: string;
  readonly id: string;
  /** Milliseconds from submission to `onTxConfirmed`'s callback. */
  readonly confirmedAfterMs: number;
}

export const meshPayment = async (
  provider: CoreBlockfrostProvider | DeclaredBlockfrostProvider,
  payment: { readonly signingKey: string; readonly to: string; readonly lovelace: bigint },
): Promise<MeshPaymentResult> => {
  const raw = CSL.PrivateKey.from_bech32(payment.signingKey).as_bytes();
  // the 1.8 provider predates two of core 1.9's IFetcher methods: fetchAddressTxs (not called here) and
  // fetchCostModels, whose absence MeshTxBuilder.complete() logs and answers with Mesh's default cost models;
  // a key-signed payment runs no script, so they do not change it (core's own provider has both)
  const fetcher = provider as unknown as IFetcher;
  const wallet = new MeshWallet({
    networkId: 0,
    fetcher,
    submitter: provider,
    key: { type: "cli", payment: `5820${Array.from(raw, (b) => b.toString(16).padStart(2, "0")).join("")}` },
  });
  await wallet.init();
  // a `cli` key's wallet answers its base address unless asked for the enterprise one (the devnet funds that)
  const walletAddress = await wallet.getChangeAddress("enterprise");
  const params = await provider.fetchProtocolParameters();
  const utxos = await wallet.getUtxos("enterprise");
  const builder = new MeshTxBuilder({ fetcher, submitter: provider, params });
  const unsigned = await builder
    .txOut(payment.to, [{ unit: "lovelace", quantity: String(payment.lovelace) }])
    .changeAddress(walletAddress)
    .selectUtxosFrom(utxos)
    .complete();
  const signed = await wallet.signTx(unsigned);
  const id = await provider.submitTx(signed);
  const submitted = Date.now();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`onTxConfirmed: ${id} not confirmed within 60 s`)),
      60_000,
    );
    provider.onTxConfirmed(id, () => {
      clearTimeout(timer);
      resolve();
    }, 12);
  });
  return {
    walletAddress,
    utxos: utxos.map((u) =>
      `${u.input.txHash}#${u.input.outputIndex}:${
        u.output.amount.find((a) => a.unit === "lovelace")?.quantity
      }`
    ),
    minFeeA: params.minFeeA,
    minFeeB: params.minFeeB,
    coinsPerUtxoSize: String(params.coinsPerUtxoSize),
    id,
    confirmedAfterMs: Date.now() - submitted,
  };
};
