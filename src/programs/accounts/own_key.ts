/** An account's own key by id; another account's (or no) key is `NotFoundError`, so ids reveal nothing. */
import { Effect, Option } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { NotFoundError } from "@src/domain/errors.ts";

export const keyNotFound = (keyId: number) =>
  new NotFoundError({ message: `No key ${keyId} in this account` });

export const ownKey = (accountId: number, keyId: number) =>
  Effect.flatMap(AccountStore, (store) => store.key(accountId, keyId)).pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.fail(keyNotFound(keyId)),
      onSome: Effect.succeed,
    })),
  );

/** A change the store made, or `NotFoundError` when it found no such key (or a revoked one) of the account. */
export const changed = (keyId: number) => (done: boolean) =>
  done ? Effect.void : Effect.fail(keyNotFound(keyId));
