/**
 * Accounts (issue 16): plans, the families and networks a key may be limited to, and the rules for email
 * addresses and passwords. Pure: no I/O.
 */
import { Either } from "effect";
import type { Network } from "@schemas/network.ts";
import { InvalidEmail, WeakPassword } from "./account_errors.ts";
import { keyFamilies, type KeyFamily, permissionFamilyTable } from "./families.ts";

/** Set by the operator (`npm run accounts -- plan`); sign-ups start FREE. */
export type Plan = "FREE" | "PAID";
export const plans: ReadonlyArray<Plan> = ["FREE", "PAID"];

export { keyFamilies, type KeyFamily };

/** How people read a family in messages. */
export const familyLabel: Readonly<Record<KeyFamily, string>> = Object.fromEntries(
  keyFamilies.map((f) => [f, permissionFamilyTable[f].label]),
) as Record<KeyFamily, string>;

export interface KeyPermissions {
  readonly networks: ReadonlyArray<Network>;
  readonly families: ReadonlyArray<KeyFamily>;
}

export const allNetworks: ReadonlyArray<Network> = ["mainnet", "preprod"];

/** The default: every network, every family. */
export const allPermissions: KeyPermissions = { networks: allNetworks, families: keyFamilies };

/** RFC 5321's path limit: longer addresses cannot be mailed to. */
export const maxEmailLength = 254;
export const minPasswordLength = 12;
export const maxPasswordLength = 1024;

const localPart = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}$/;
const domainPart =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** Trimmed and lower-cased, so one mailbox is one account however it is typed. */
export const normalizeEmail = (text: string): Either.Either<string, InvalidEmail> => {
  if (typeof text !== "string") return Either.left(new InvalidEmail({ reason: "expected text" }));
  const email = text.trim().toLowerCase();
  if (email === "") return Either.left(new InvalidEmail({ reason: "it is empty" }));
  if (email.length > maxEmailLength) {
    return Either.left(new InvalidEmail({ reason: `longer than ${maxEmailLength} characters` }));
  }
  const at = email.lastIndexOf("@");
  if (at < 1 || !localPart.test(email.slice(0, at)) || !domainPart.test(email.slice(at + 1))) {
    return Either.left(new InvalidEmail({ reason: "expected name@example.com" }));
  }
  return Either.right(email);
};

/** At least 12 characters (length beats composition rules), at most 1024, and not the email address. */
export const checkPassword = (
  password: string,
  email?: string,
): Either.Either<void, WeakPassword> => {
  if (typeof password !== "string") {
    return Either.left(new WeakPassword({ reason: "A password is required" }));
  }
  const length = [...password].length;
  if (length < minPasswordLength) {
    return Either.left(
      new WeakPassword({ reason: `The password must have at least ${minPasswordLength} characters` }),
    );
  }
  if (length > maxPasswordLength) {
    return Either.left(
      new WeakPassword({ reason: `The password must have at most ${maxPasswordLength} characters` }),
    );
  }
  if (email !== undefined && password.trim().toLowerCase() === email.trim().toLowerCase()) {
    return Either.left(new WeakPassword({ reason: "The password must not be the email address" }));
  }
  return Either.right(undefined);
};
