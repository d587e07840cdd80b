/**
 * A new password for a logged-in account, given the current one. Every other session of the account ends (one
 * that knew the old password is no longer trusted); `keepSession`, the one asking, stays.
 */
import { Effect } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { hashPassword } from "@layers/password_hash.ts";
import { checkPassword } from "@src/domain/accounts.ts";
import { verifyOwnPassword } from "./verify_own_password.ts";

export const changePassword = (accountId: number, current: string, next: string, keepSession?: string) =>
  Effect.gen(function* () {
    const account = yield* verifyOwnPassword(accountId, current);
    yield* checkPassword(next, account.email ?? undefined);
    const hash = yield* hashPassword(next);
    yield* (yield* AccountStore).setPassword(accountId, hash, keepSession);
  });
