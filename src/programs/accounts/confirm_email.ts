/**
 * Confirms an account's email address through its mailed link (once; not after it expires). An account signed
 * up by mail gets its first FREE key here, in the same transaction: its secret is returned once.
 */
import { Effect, Option } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { TokenInvalid } from "@src/domain/account_errors.ts";
import { looksLikeSecret } from "./secrets.ts";
import { firstKey } from "./sign_up.ts";

export const confirmEmail = (token: string) =>
  Effect.gen(function* () {
    if (!looksLikeSecret(token)) return yield* Effect.fail(new TokenInvalid());
    const store = yield* AccountStore;
    const confirmed = yield* store.confirmWithToken(token, firstKey);
    if (Option.isNone(confirmed)) return yield* Effect.fail(new TokenInvalid());
    const { accountId, key } = confirmed.value;
    return {
      accountId,
      key: key && { id: key.record.id, secret: key.secret, record: key.record },
    };
  });
