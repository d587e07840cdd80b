/**
 * Deletes an account, given its password: its keys are revoked (they answer 401 `Key revoked` within a second),
 * its sessions and links end and its email address is freed, in one transaction. Usage stays recorded against
 * the revoked keys.
 */
import { Effect } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { verifyOwnPassword } from "./verify_own_password.ts";

export const deleteAccount = (accountId: number, password: string) =>
  Effect.gen(function* () {
    yield* verifyOwnPassword(accountId, password);
    yield* (yield* AccountStore).deleteAccount(accountId);
  });
