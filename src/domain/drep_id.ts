/**
 * DRep ids as clients send them: CIP-129 bech32 (`drep1` over a header byte, 0x22 key hash or 0x23 script hash,
 * and the 28-byte hash), CIP-105 bech32 (`drep1` key hash, `drep_script1` script hash, 28 bytes), or hex (the
 * 28-byte hash, whose kind is then unknown, or CIP-129's 29 bytes). The predefined voting options
 * (`drep_always_abstain`, `drep_always_no_confidence`) have no hash and are not DRep ids.
 */
import { bech32, hex } from "@scure/base";
import type { Decoded } from "./cardano_ids.ts";

export interface DRepKey {
  readonly raw: string;
  /** undefined when the id does not say (28-byte hex). */
  readonly hasScript: boolean | undefined;
}

const fromHeader = (bytes: Uint8Array): Decoded<DRepKey> => {
  const header = bytes[0];
  if (header !== 0x22 && header !== 0x23) {
    return { ok: false, reason: "has a CIP-129 header other than a DRep key (0x22) or script (0x23) hash" };
  }
  return { ok: true, value: { raw: hex.encode(bytes.slice(1)), hasScript: header === 0x23 } };
};

export const decodeDRepId = (text: string): Decoded<DRepKey> => {
  const id = text.toLowerCase();
  if (id === "drep_always_abstain" || id === "drep_always_no_confidence") {
    return { ok: false, reason: "is a predefined voting option, not a DRep with a credential" };
  }
  if (/^[0-9a-f]{56}$/.test(id)) return { ok: true, value: { raw: id, hasScript: undefined } };
  if (/^[0-9a-f]{58}$/.test(id)) return fromHeader(hex.decode(id));
  if (text !== id && text !== text.toUpperCase()) return { ok: false, reason: "mixes upper and lower case" };
  let decoded: { prefix: string; bytes: Uint8Array };
  try {
    const { prefix, words } = bech32.decode(id as `${string}1${string}`, 1023);
    decoded = { prefix, bytes: bech32.fromWords(words) };
  } catch {
    return { ok: false, reason: "is neither a bech32 DRep id nor hex" };
  }
  const { prefix, bytes } = decoded;
  if (prefix === "drep" && bytes.length === 29) return fromHeader(bytes);
  if ((prefix === "drep" || prefix === "drep_script") && bytes.length === 28) {
    return { ok: true, value: { raw: hex.encode(bytes), hasScript: prefix === "drep_script" } };
  }
  return {
    ok: false,
    reason: `has prefix ${prefix} and ${bytes.length} bytes; a DRep id is drep1… (28 or 29 bytes)`,
  };
};
