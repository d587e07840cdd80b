/**
 * The one key policy (issue 16), shared by the keys CLI (scripts/keys.ts) and the account programs, so the
 * operator's tool and the dashboard cannot disagree: which tiers a plan may create, valid names, permissions and
 * expiry, and the refusal a request outside a key's permissions gets. Pure: no I/O.
 */
import { Either } from "effect";
import type { Network } from "@schemas/network.ts";
import { InvalidKeyRequest, PlanForbids } from "./account_errors.ts";
import {
  allNetworks,
  allPermissions,
  familyLabel,
  keyFamilies,
  type KeyFamily,
  type KeyPermissions,
  type Plan,
} from "./accounts.ts";

export type Tier = "FREE" | "PAID";

export const maxKeyNameLength = 64;

/** A FREE account may hold FREE keys only; a PAID account either. */
export const mayCreate = (plan: Plan, tier: Tier): Either.Either<void, PlanForbids> =>
  plan === "FREE" && tier === "PAID"
    ? Either.left(
      new PlanForbids({
        message: "PAID keys need a PAID plan, and this account is on the FREE plan: create a FREE key, " +
          "or ask the operator to move the account to the PAID plan",
      }),
    )
    : Either.right(undefined);

/** 1 to 64 printable characters once trimmed (no control characters: names appear in listings and logs). */
export const checkKeyName = (name: unknown): Either.Either<string, InvalidKeyRequest> => {
  if (typeof name !== "string") {
    return Either.left(new InvalidKeyRequest({ field: "name", reason: "required" }));
  }
  const trimmed = name.trim();
  if (trimmed === "") return Either.left(new InvalidKeyRequest({ field: "name", reason: "required" }));
  if ([...trimmed].length > maxKeyNameLength) {
    return Either.left(
      new InvalidKeyRequest({ field: "name", reason: `at most ${maxKeyNameLength} characters` }),
    );
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(trimmed)) {
    return Either.left(new InvalidKeyRequest({ field: "name", reason: "printable characters only" }));
  }
  return Either.right(trimmed);
};

const pick = <A extends string>(
  field: string,
  known: ReadonlyArray<A>,
  given: ReadonlyArray<string> | undefined,
): Either.Either<ReadonlyArray<A>, InvalidKeyRequest> => {
  if (given === undefined) return Either.right(known);
  if (!Array.isArray(given)) return Either.left(new InvalidKeyRequest({ field, reason: "expected a list" }));
  const unknown = given.filter((g) => !known.includes(g as A));
  if (unknown.length > 0) {
    return Either.left(
      new InvalidKeyRequest({
        field,
        reason: `unknown ${JSON.stringify(String(unknown[0]).slice(0, 40))} (expected ${known.join(", ")})`,
      }),
    );
  }
  const chosen = known.filter((k) => given.includes(k));
  if (chosen.length === 0) {
    return Either.left(new InvalidKeyRequest({ field, reason: "choose at least one" }));
  }
  return Either.right(chosen);
};

/** Permissions as asked (undefined = all), in canonical order; at least one network and one family. */
export const checkPermissions = (
  asked: { readonly networks?: ReadonlyArray<string>; readonly families?: ReadonlyArray<string> } | undefined,
): Either.Either<KeyPermissions, InvalidKeyRequest> => {
  if (asked === undefined) return Either.right(allPermissions);
  return Either.flatMap(
    pick("networks", allNetworks, asked.networks),
    (networks) =>
      Either.map(pick("families", keyFamilies, asked.families), (families) => ({ networks, families })),
  );
};

/** No expiry, or one in the future. */
export const checkExpiry = (
  expiresAt: Date | null | undefined,
  now: Date,
): Either.Either<Date | null, InvalidKeyRequest> => {
  if (expiresAt === null || expiresAt === undefined) return Either.right(null);
  if (!(expiresAt instanceof Date) || Number.isNaN(expiresAt.getTime())) {
    return Either.left(new InvalidKeyRequest({ field: "expiresAt", reason: "expected a date" }));
  }
  if (expiresAt.getTime() <= now.getTime()) {
    return Either.left(new InvalidKeyRequest({ field: "expiresAt", reason: "must be in the future" }));
  }
  return Either.right(expiresAt);
};

export interface KeyRequest {
  readonly name: unknown;
  readonly tier: Tier;
  readonly permissions?: {
    readonly networks?: ReadonlyArray<string>;
    readonly families?: ReadonlyArray<string>;
  };
  readonly expiresAt?: Date | null;
}

export interface CheckedKey {
  readonly name: string;
  readonly tier: Tier;
  readonly permissions: KeyPermissions;
  readonly expiresAt: Date | null;
}

/** The whole check a new key passes, in the order a person fixes them: plan, name, permissions, expiry. */
export const checkNewKey = (
  plan: Plan,
  request: KeyRequest,
  now: Date,
): Either.Either<CheckedKey, PlanForbids | InvalidKeyRequest> =>
  Either.gen(function* () {
    if (request.tier !== "FREE" && request.tier !== "PAID") {
      return yield* Either.left(new InvalidKeyRequest({ field: "tier", reason: "expected FREE or PAID" }));
    }
    yield* mayCreate(plan, request.tier);
    const name = yield* checkKeyName(request.name);
    const permissions = yield* checkPermissions(request.permissions);
    const expiresAt = yield* checkExpiry(request.expiresAt, now);
    return { name, tier: request.tier, permissions, expiresAt };
  });

const list = (items: ReadonlyArray<string>) => items.join(", ");

/**
 * Why a key may not serve a request (its message for a 403), or undefined when it may. `network` is undefined
 * for requests that concern no network (the price, the key's own info).
 */
export const permissionRefusal = (
  permissions: KeyPermissions,
  network: Network | undefined,
  families: ReadonlyArray<KeyFamily>,
): string | undefined => {
  if (network !== undefined && !permissions.networks.includes(network)) {
    return `This key may not be used on ${network} (allowed: ${list(permissions.networks)})`;
  }
  const missing = families.find((f) => !permissions.families.includes(f));
  if (missing !== undefined) {
    return `This key may not be used for ${familyLabel[missing]} (allowed: ${
      list(permissions.families.map((f) => familyLabel[f]))
    })`;
  }
  return undefined;
};
