/** Revokes one of the account's keys for good (401 `Key revoked` within a second); its usage stays. */
import { Effect } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { changed } from "./own_key.ts";

export const revokeKey = (accountId: number, keyId: number) =>
  Effect.flatMap(
    AccountStore,
    (store) => Effect.flatMap(store.setKeyStatus(accountId, keyId, "revoked"), changed(keyId)),
  );
