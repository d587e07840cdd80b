/** Deactivates (403 `API key is inactive`) or reactivates one of the account's keys; a revoked key stays so. */
import { Effect } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { changed } from "./own_key.ts";

export const setKeyActive = (accountId: number, keyId: number, active: boolean) =>
  Effect.flatMap(
    AccountStore,
    (store) =>
      Effect.flatMap(store.setKeyStatus(accountId, keyId, active ? "active" : "inactive"), changed(keyId)),
  );
