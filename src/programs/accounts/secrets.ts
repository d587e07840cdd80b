/**
 * Session secrets, CSRF tokens and link tokens: 256 random bits, base64url (43 characters). Only their SHA-256
 * is stored (layers/account_store.ts); a string of any other shape is refused before any database read.
 */
import { base64urlnopad } from "@scure/base";

export const newSecret = (): string => base64urlnopad.encode(crypto.getRandomValues(new Uint8Array(32)));

export const looksLikeSecret = (text: unknown): text is string =>
  typeof text === "string" && /^[A-Za-z0-9_-]{43}$/.test(text);

/** A dashboard session lasts a week from log-in, however much it is used. */
export const sessionDays = 7;
/** A confirmation link lasts two days; a reset link an hour (a day when the operator prints it). */
export const confirmLinkHours = 48;
export const resetLinkHours = 1;
export const operatorResetLinkHours = 24;
