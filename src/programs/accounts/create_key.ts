/**
 * A new key of an account, checked by the one key policy (src/domain/key_policy.ts: a FREE account gets FREE
 * keys only, valid name, permissions, future expiry) and, on a FREE account, the limit of active keys
 * (FREE_KEYS_PER_ACCOUNT: KeyLimitReached). The secret is returned once.
 */
import { Effect, Option } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { AppConfig } from "@layers/config.ts";
import { SessionInvalid } from "@src/domain/account_errors.ts";
import { checkNewKey, type KeyRequest } from "@src/domain/key_policy.ts";

export const createKey = (accountId: number, request: KeyRequest) =>
  Effect.gen(function* () {
    const store = yield* AccountStore;
    const account = yield* store.byId(accountId);
    if (Option.isNone(account) || account.value.disabled) return yield* Effect.fail(new SessionInvalid());
    const checked = yield* checkNewKey(account.value.plan, request, new Date());
    const { freeKeysPerAccount } = yield* AppConfig;
    const { secret, record } = yield* store.createKey(accountId, checked, freeKeysPerAccount);
    return { id: record.id, secret, record };
  });
