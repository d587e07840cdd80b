/**
 * Log-in (issue 16): email and password give a NEW session (a fresh secret every time, so a session id planted
 * before log-in is worth nothing) with its CSRF token. Failures count per account and per client address; past
 * either allowance the log-in is refused before the password is even checked (`LoginThrottled`). An unknown
 * address costs the same scrypt as a known one, and both fail alike (`InvalidCredentials`).
 */
import { Effect, Either } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { AttemptThrottle } from "@layers/attempt_throttle.ts";
import { Mailer } from "@layers/mailer.ts";
import { decoyHash, verifyPassword } from "@layers/password_hash.ts";
import { maxPasswordLength, normalizeEmail } from "@src/domain/accounts.ts";
import {
  AccountDisabled,
  EmailUnconfirmed,
  InvalidCredentials,
  LoginThrottled,
} from "@src/domain/account_errors.ts";
import { addressGroup } from "@src/domain/client_address.ts";
import { newSecret, sessionDays } from "./secrets.ts";

export const logIn = (input: { email: string; password: string; clientAddress: string }) =>
  Effect.gen(function* () {
    const throttle = yield* AttemptThrottle;
    const store = yield* AccountStore;
    const normalized = normalizeEmail(input.email);
    // a malformed address or an oversized password cannot be right: refused without a hash or a read
    const email = Either.getOrUndefined(normalized);
    const address = addressGroup(input.clientAddress);
    const wait = Math.max(
      yield* throttle.blockedFor("login-address", address),
      email === undefined ? 0 : yield* throttle.blockedFor("login-account", email),
    );
    if (wait > 0) {
      return yield* Effect.fail(new LoginThrottled({ retryAfterSeconds: Math.ceil(wait / 1000) }));
    }
    const failed = Effect.gen(function* () {
      yield* throttle.record("login-address", address);
      if (email !== undefined) yield* throttle.record("login-account", email);
      return yield* Effect.fail(new InvalidCredentials());
    });
    if (
      email === undefined || typeof input.password !== "string" ||
      input.password.length > maxPasswordLength * 4
    ) {
      return yield* failed;
    }
    const found = yield* store.byEmail(email);
    const hash = found._tag === "Some" && found.value.passwordHash !== null
      ? found.value.passwordHash
      : yield* decoyHash;
    const matches = yield* verifyPassword(input.password, hash);
    if (!matches || found._tag === "None") return yield* failed;
    const account = found.value;
    if (account.disabled) return yield* Effect.fail(new AccountDisabled());
    if ((yield* Mailer).enabled && !account.emailConfirmed) return yield* Effect.fail(new EmailUnconfirmed());
    yield* throttle.clear("login-account", email);
    const secret = newSecret();
    const session = yield* store.createSession({
      accountId: account.id,
      secret,
      csrfToken: newSecret(),
      expiresAt: new Date(Date.now() + sessionDays * 86_400_000),
    });
    const { passwordHash: _, ...visible } = account;
    return {
      account: visible,
      session: { secret, csrfToken: session.csrfToken, expiresAt: session.expiresAt },
    };
  });
