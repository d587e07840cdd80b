/** Native token transactions: minting under a wallet's signature policy (fungible tokens or NFTs) and burning. */
import * as enc from "./cardano_encoding.ts";
import type { Ledger } from "./ledger.ts";
import { ada, adjectives, nouns } from "./network_params.ts";
import { b, hexText, j } from "./row_values.ts";
import { writeTx } from "./tx_writer.ts";

export const mint = (ledger: Ledger): boolean => {
  const w = ledger.randomWallet();
  const wallet = ledger.wallets[w]!;
  if (ledger.addrScript[wallet.address] || w === ledger.exchangeWallet) return false;
  let policy = ledger.policies.find((p) => p.wallet === w);
  const inputs = ledger.takeInputs(5 * ada);
  if (inputs.length === 0) return false;
  const isNew = !policy;
  if (!policy) {
    const script = enc.signaturePolicy(wallet.payment);
    policy = {
      hash: script.hash,
      json: script.json,
      size: script.size,
      wallet: w,
      scriptId: 0,
      assets: [],
    };
    ledger.policies.push(policy);
  }
  const nft = ledger.r.chance(0.5);
  const label = nft
    ? `${ledger.r.pick(adjectives)}${ledger.r.pick(nouns)}${
      String(policy.assets.length + 1).padStart(4, "0")
    }`
    : `${ledger.r.pick(nouns).toUpperCase()}${ledger.r.int(1, 99)}`;
  const nameHex = hexText(label).slice(0, 64);
  let ident = policy.assets.find((a) => ledger.assetName[a] === nameHex);
  if (ident === undefined) {
    ident = ledger.id("multi_asset");
    ledger.row("multi_asset", [
      ident,
      b(policy.hash),
      b(nameHex),
      enc.assetFingerprint(policy.hash, nameHex),
    ]);
    policy.assets.push(ident);
    ledger.assetPolicy[ident] = ledger.policies.indexOf(policy);
    ledger.assetName[ident] = nameHex;
  }
  const quantity = nft ? 1n : BigInt(ledger.r.logUniform(1_000, 1_000_000_000)) * 1_000n;
  const p = policy;
  const id = ident;
  const metadata: Array<[number, unknown]> = nft
    ? [[721, {
      [p.hash]: { [label]: { name: label, image: `ipfs://Qm${ledger.r.hex(22)}`, mediaType: "image/png" } },
    }]]
    : [];
  return writeTx(ledger, {
    inputs,
    outputs: [{ address: wallet.address, value: 2 * ada, assets: new Map([[id, quantity]]) }],
    changeTo: wallet.address,
    size: 600 + 110 * inputs.length + (nft ? 200 : 0),
    mint: [[id, quantity]],
    scriptSize: 0,
    metadata,
    extra: (txId) => {
      if (isNew) {
        p.scriptId = ledger.id("script");
        ledger.row("script", [p.scriptId, txId, b(p.hash), "timelock", j(p.json), null, null]);
      }
    },
  }) > 0;
};

/** Burns part of a token: spends an output holding it, mints the negative amount, keeps the rest. */
export const burn = (ledger: Ledger): boolean => {
  const out = ledger.take(ledger.tokenOutputs);
  if (out === undefined || ledger.inPool.get(out) === 0) return false;
  ledger.inPool.set(out, 0);
  const held = ledger.outAssets.get(out)!;
  const [ident, q] = held.entries().next().value!;
  const burned = q > 1n ? q / 3n : q;
  const inputs = ledger.takeInputs(3 * ada, out);
  if (inputs.length === 0) return false;
  return writeTx(ledger, {
    inputs,
    outputs: [],
    changeTo: ledger.changeAddress(out),
    size: 550 + 110 * inputs.length,
    mint: [[ident, -burned]],
  }) > 0;
};
