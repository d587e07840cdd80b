/**
 * API keys (spec: Authentication 2): `<PREFIX>_<32 random characters>`, characters from a cryptographically
 * secure source. Stored as SHA-256 only; the hint (prefix and last four characters) lets people tell keys apart.
 */
import { sha256 } from "@noble/hashes/sha2.js";

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
export const secretLength = 32;

/** A new key: 32 characters drawn uniformly (rejection sampling keeps 62 symbols unbiased). */
export const generateApiKey = (prefix: string): string => {
  let out = "";
  while (out.length < secretLength) {
    for (const byte of crypto.getRandomValues(new Uint8Array(64))) {
      if (byte < 248 && out.length < secretLength) out += alphabet[byte % 62];
    }
  }
  return `${prefix}_${out}`;
};

/** True for strings shaped like a key of any prefix; cheap to reject junk before hashing or caching. */
export const looksLikeApiKey = (text: string): boolean => /^[A-Za-z0-9]{1,12}_[A-Za-z0-9]{32}$/.test(text);

export const hashApiKey = (key: string): Uint8Array => sha256(new TextEncoder().encode(key));

export const keyHint = (key: string): string => `${key.slice(0, key.indexOf("_") + 1)}…${key.slice(-4)}`;

/** A prefix operators may configure: letters and digits, 1 to 12 of them. */
export const isValidPrefix = (prefix: string): boolean => /^[A-Za-z0-9]{1,12}$/.test(prefix);
