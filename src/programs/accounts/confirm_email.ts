/** Confirms an account's email address through its mailed link (once; not after it expires). */
import { Effect, Option } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { TokenInvalid } from "@src/domain/account_errors.ts";
import { looksLikeSecret } from "./secrets.ts";

export const confirmEmail = (token: string) =>
  Effect.gen(function* () {
    if (!looksLikeSecret(token)) return yield* Effect.fail(new TokenInvalid());
    const store = yield* AccountStore;
    const accountId = yield* store.confirmWithToken(token);
    if (Option.isNone(accountId)) return yield* Effect.fail(new TokenInvalid());
    return { accountId: accountId.value };
  });
