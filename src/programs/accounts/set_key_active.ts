/**
 * Deactivates (403 `API key is inactive`) or reactivates one of the account's keys; a revoked key stays so, and a
 * FREE account re-activates one only below its limit of active keys (FREE_KEYS_PER_ACCOUNT: KeyLimitReached).
 */
import { Effect } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { AppConfig } from "@layers/config.ts";
import { changed } from "./own_key.ts";

export const setKeyActive = (accountId: number, keyId: number, active: boolean) =>
  Effect.gen(function* () {
    const store = yield* AccountStore;
    const { freeKeysPerAccount } = yield* AppConfig;
    const done = yield* store.setKeyStatus(
      accountId,
      keyId,
      active ? "active" : "inactive",
      freeKeysPerAccount,
    );
    return yield* changed(keyId)(done);
  });
