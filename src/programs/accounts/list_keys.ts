/** An account's keys, revoked ones included (they keep their usage), oldest first. Secrets are never listed. */
import { Effect } from "effect";
import { AccountStore } from "@layers/account_store.ts";

export const listKeys = (accountId: number) => Effect.flatMap(AccountStore, (store) => store.keys(accountId));
