/**
 * A native asset's CIP-25 on-chain metadata: its entry in the label 721 metadata of a minting transaction,
 * `{<policy id>: {<asset name>: {...}}, version?}`. Version 1 keys asset names by their UTF-8 text, version 2 by
 * their hex; either key is tried. The entry is valid for its version when it has a `name` string and an `image`
 * (a string, or an array of strings for URIs longer than 64 bytes), as CIP-25 requires.
 */
import { hex } from "@scure/base";

export type Cip25Standard = "CIP25v1" | "CIP25v2";

export interface Cip25Metadata {
  readonly metadata: Readonly<Record<string, unknown>>;
  /** null when the entry lacks what its version requires. */
  readonly standard: Cip25Standard | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const utf8 = (nameHex: string): string | undefined => {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(hex.decode(nameHex));
  } catch {
    return undefined;
  }
};

export const cip25Metadata = (label721: unknown, policyId: string, nameHex: string): Cip25Metadata | null => {
  if (!isRecord(label721)) return null;
  const byPolicy = label721[policyId];
  if (!isRecord(byPolicy)) return null;
  const version = label721.version === 2 || label721.version === "2" || label721.version === "2.0" ? 2 : 1;
  const text = utf8(nameHex);
  const keys = version === 2 ? [nameHex, text] : [text, nameHex];
  const entry = keys.map((k) => (k === undefined ? undefined : byPolicy[k])).find(isRecord);
  if (!entry) return null;
  const image = entry.image;
  const valid = typeof entry.name === "string" &&
    (typeof image === "string" || (Array.isArray(image) && image.every((p) => typeof p === "string")));
  return { metadata: entry, standard: valid ? (version === 2 ? "CIP25v2" : "CIP25v1") : null };
};
