/**
 * A new password through a reset link (mailed, or printed by the operator): the link works once and not after
 * it expires. It ends every session of the account, and confirms its email address (whoever holds the link
 * reads its mail). The password is checked as at sign-up (length, not the address) before the link is used, so
 * a refused one leaves the link working.
 */
import { Effect, Option } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { hashPassword } from "@layers/password_hash.ts";
import { checkPassword } from "@src/domain/accounts.ts";
import { TokenInvalid } from "@src/domain/account_errors.ts";
import { looksLikeSecret } from "./secrets.ts";

export const resetPassword = (token: string, next: string) =>
  Effect.gen(function* () {
    if (!looksLikeSecret(token)) return yield* Effect.fail(new TokenInvalid());
    // length first: a long password is not hashed, nor is the database asked
    yield* checkPassword(next);
    const store = yield* AccountStore;
    const holder = yield* store.tokenAccount("reset", token);
    if (Option.isNone(holder)) return yield* Effect.fail(new TokenInvalid());
    yield* checkPassword(next, holder.value.email ?? undefined);
    const hash = yield* hashPassword(next);
    const reset = yield* store.resetWithToken(token, hash);
    if (Option.isNone(reset)) return yield* Effect.fail(new TokenInvalid());
  });
