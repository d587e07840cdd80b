/** Renames one of the account's keys (not a revoked one); the name passes the key policy's check. */
import { Effect } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { checkKeyName } from "@src/domain/key_policy.ts";
import { changed } from "./own_key.ts";

export const renameKey = (accountId: number, keyId: number, name: string) =>
  Effect.gen(function* () {
    const checked = yield* checkKeyName(name);
    yield* Effect.flatMap((yield* AccountStore).renameKey(accountId, keyId, checked), changed(keyId));
  });
