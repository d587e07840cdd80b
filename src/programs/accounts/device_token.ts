/**
 * Device tokens (OWASP's "device cookies"): a browser that logged in to an account gets a token naming the
 * account and a random nonce, signed with an HMAC keyed by the account's password hash (secret to the service,
 * shared by its instances, no key to manage). A log-in that brings a valid one for the account it names counts
 * its failures against that browser (`login-device`), not against the account, so a stranger's flood of wrong
 * passwords, which locks the account for unknown browsers, does not lock out its owner. A new password (or a
 * rehash) changes the key: every token of the account stops being valid, and the next log-in issues a new one.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { base64urlnopad } from "@scure/base";

/** How long a browser stays trusted after its last successful log-in. */
export const deviceDays = 180;

const macOf = (accountId: number, nonce: string, passwordHash: string) =>
  createHmac("sha256", createHash("sha256").update(`cds device token|${passwordHash}`).digest())
    .update(`${accountId}.${nonce}`)
    .digest();

export const newDeviceToken = (accountId: number, passwordHash: string): string => {
  const nonce = base64urlnopad.encode(crypto.getRandomValues(new Uint8Array(16)));
  return `${accountId}.${nonce}.${base64urlnopad.encode(macOf(accountId, nonce, passwordHash))}`;
};

/**
 * The browser's counter subject (`<account id>.<nonce>`) when `token` is a valid device token of this account;
 * undefined for anything else (another account's, a forged or malformed one, one from before a new password).
 */
export const deviceOf = (
  token: string | undefined,
  accountId: number,
  passwordHash: string,
): string | undefined => {
  if (typeof token !== "string" || token.length > 120) return undefined;
  const m = /^(\d{1,15})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m || Number(m[1]) !== accountId) return undefined;
  const expected = macOf(accountId, m[2]!, passwordHash);
  const given = Buffer.from(m[3]!, "base64url");
  return given.length === expected.length && timingSafeEqual(given, expected)
    ? `${accountId}.${m[2]}`
    : undefined;
};
