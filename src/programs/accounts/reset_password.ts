/**
 * A new password through a reset link (mailed, or printed by the operator): the link works once and not after
 * it expires. It ends every session of the account, and confirms its email address (whoever holds the link
 * reads its mail).
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
    // length first: a weak password must not use the link up
    yield* checkPassword(next);
    const store = yield* AccountStore;
    const hash = yield* hashPassword(next);
    const accountId = yield* store.useToken("reset", token);
    if (Option.isNone(accountId)) return yield* Effect.fail(new TokenInvalid());
    yield* store.setPassword(accountId.value, hash);
    yield* store.confirmEmail(accountId.value);
  });
