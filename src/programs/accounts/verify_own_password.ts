/**
 * The current password, asked again before a sensitive change (new password, deleting the account). Wrong
 * answers count against the account like failed log-ins (reserved before the check, given back when it was
 * right or could not run), so a stolen session cannot guess it either, one at a time or all at once.
 */
import { Effect, Option } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { AttemptThrottle } from "@layers/attempt_throttle.ts";
import { verifyPassword } from "@layers/password_hash.ts";
import { maxPasswordLength } from "@src/domain/accounts.ts";
import { InvalidCredentials, LoginThrottled, SessionInvalid } from "@src/domain/account_errors.ts";

export const verifyOwnPassword = (accountId: number, password: string) =>
  Effect.gen(function* () {
    const store = yield* AccountStore;
    const throttle = yield* AttemptThrottle;
    const account = yield* store.byId(accountId);
    if (Option.isNone(account)) return yield* Effect.fail(new SessionInvalid());
    const subject = account.value.email ?? `#${accountId}`;
    const wait = yield* throttle.reserve("login-account", subject);
    if (wait > 0) {
      return yield* Effect.fail(new LoginThrottled({ retryAfterSeconds: Math.ceil(wait / 1000) }));
    }
    const giveBack = throttle.release("login-account", subject);
    const hash = yield* store.passwordHashOf(accountId).pipe(Effect.tapError(() => giveBack));
    const ok = Option.isSome(hash) && typeof password === "string" &&
      password.length <= maxPasswordLength * 4 &&
      (yield* verifyPassword(password, hash.value).pipe(Effect.tapError(() => giveBack)));
    if (!ok) return yield* Effect.fail(new InvalidCredentials());
    yield* giveBack;
    return account.value;
  });
