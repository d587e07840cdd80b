/**
 * A native asset's unit as Blockfrost's clients send it: the 28-byte policy id and the asset name (0 to 32
 * bytes), concatenated in hex. Read case-insensitively, answered in lower case.
 */
import type { Decoded } from "./cardano_ids.ts";

export interface AssetUnit {
  readonly policyId: string;
  readonly assetNameHex: string;
}

export const decodeAssetUnit = (text: string): Decoded<AssetUnit> => {
  const unit = text.toLowerCase();
  if (!/^[0-9a-f]*$/.test(unit)) return { ok: false, reason: "is not hex (policy id and asset name)" };
  if (unit.length < 56 || unit.length > 120 || unit.length % 2 !== 0) {
    return {
      ok: false,
      reason: "must be a 28-byte policy id followed by an asset name of at most 32 bytes, in hex",
    };
  }
  return { ok: true, value: { policyId: unit.slice(0, 56), assetNameHex: unit.slice(56) } };
};

export const decodePolicyId = (text: string): Decoded<string> => {
  const policy = text.toLowerCase();
  return /^[0-9a-f]{56}$/.test(policy)
    ? { ok: true, value: policy }
    : { ok: false, reason: "must be a 28-byte policy id in hex (56 characters)" };
};
