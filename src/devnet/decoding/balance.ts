/**
 * Signed multi-asset values for the balance rules: lovelace plus (policy, asset name) quantities, where minted
 * and burnt assets may go negative before they are compared. Converts from CML values and to Ogmios' Value.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { OgmiosValue } from "../errors.ts";

export interface Balance {
  lovelace: bigint;
  /** `policyHex.assetNameHex` → quantity. */
  readonly assets: Map<string, bigint>;
}

export const emptyBalance = (): Balance => ({ lovelace: 0n, assets: new Map() });

export const addAsset = (b: Balance, key: string, quantity: bigint): void => {
  const q = (b.assets.get(key) ?? 0n) + quantity;
  if (q === 0n) b.assets.delete(key);
  else b.assets.set(key, q);
};

export const addCmlValue = (b: Balance, value: CML.Value, sign = 1n): void => {
  b.lovelace += sign * value.coin();
  const ma = value.multi_asset();
  const policies = ma.keys();
  for (let i = 0; i < policies.len(); i++) {
    const policy = policies.get(i);
    const assets = ma.get_assets(policy)!;
    const names = assets.keys();
    for (let k = 0; k < names.len(); k++) {
      const name = names.get(k);
      addAsset(b, `${policy.to_hex()}.${name.to_hex()}`, sign * assets.get(name)!);
    }
  }
};

export const addMint = (consumed: Balance, produced: Balance, mint: CML.Mint | undefined): void => {
  if (!mint) return;
  const policies = mint.keys();
  for (let i = 0; i < policies.len(); i++) {
    const policy = policies.get(i);
    const assets = mint.get_assets(policy)!;
    const names = assets.keys();
    for (let k = 0; k < names.len(); k++) {
      const name = names.get(k);
      const q = assets.get(name)!;
      // the ledger counts minted assets as consumed and burnt ones as produced
      if (q > 0n) addAsset(consumed, `${policy.to_hex()}.${name.to_hex()}`, q);
      else addAsset(produced, `${policy.to_hex()}.${name.to_hex()}`, -q);
    }
  }
};

export const sameBalance = (a: Balance, b: Balance): boolean =>
  a.lovelace === b.lovelace && a.assets.size === b.assets.size &&
  [...a.assets].every(([k, q]) => b.assets.get(k) === q);

export const toOgmiosValue = (b: Balance): OgmiosValue => {
  const value: OgmiosValue = { ada: { lovelace: b.lovelace } };
  for (const [key, q] of [...b.assets].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
    const [policy, name] = key.split(".") as [string, string];
    (value[policy] ??= {})[name] = q;
  }
  return value;
};

export const cmlValueToOgmios = (value: CML.Value): OgmiosValue => {
  const b = emptyBalance();
  addCmlValue(b, value);
  return toOgmiosValue(b);
};
