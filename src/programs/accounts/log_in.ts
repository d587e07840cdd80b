/**
 * Log-in (issue 16): email and password give a NEW session (a fresh secret every time, so a session id planted
 * before log-in is worth nothing) with its CSRF token, and a new device token for the browser (device_token.ts).
 * Each attempt is counted BEFORE the password is checked (`AttemptThrottle.reserve`, atomic), against the client
 * address and against the account, or, when the browser brings a valid device token of the account, against
 * that browser instead: past an allowance it is refused without a hash (`LoginThrottled`), however many arrive
 * at once. Only a wrong password keeps its count; anything else (a right password, a throttled or busy attempt)
 * gives it back. An unknown address costs the same scrypt as a known one, and both fail alike
 * (`InvalidCredentials`). A hash made with weaker parameters than today's is upgraded on the way.
 */
import { Effect, Either } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { AttemptThrottle, type Counter } from "@layers/attempt_throttle.ts";
import { Mailer } from "@layers/mailer.ts";
import { decoyHash, hashPassword, needsRehash, verifyPassword } from "@layers/password_hash.ts";
import { maxPasswordLength, normalizeEmail } from "@src/domain/accounts.ts";
import {
  AccountDisabled,
  EmailUnconfirmed,
  InvalidCredentials,
  LoginThrottled,
} from "@src/domain/account_errors.ts";
import { addressGroup } from "@src/domain/client_address.ts";
import { deviceOf, newDeviceToken } from "./device_token.ts";
import { newSecret, sessionDays } from "./secrets.ts";

const throttled = (waitMs: number) =>
  Effect.fail(new LoginThrottled({ retryAfterSeconds: Math.ceil(waitMs / 1000) }));

export const logIn = (
  input: { email: string; password: string; clientAddress: string; deviceToken?: string },
) =>
  Effect.gen(function* () {
    const throttle = yield* AttemptThrottle;
    const store = yield* AccountStore;
    const email = Either.getOrUndefined(normalizeEmail(input.email));
    const address = addressGroup(input.clientAddress);
    const addressWait = yield* throttle.reserve("login-address", address);
    if (addressWait > 0) return yield* throttled(addressWait);
    const reserved: Array<readonly [Counter, string]> = [["login-address", address]];
    const giveBack = Effect.forEach(reserved, ([c, s]) => throttle.release(c, s), { discard: true });

    const attempt = Effect.gen(function* () {
      // a malformed address cannot be right: refused without a hash or a read (counted against the address)
      if (email === undefined) return yield* Effect.fail(new InvalidCredentials());
      const found = yield* store.byEmail(email);
      const stored = found._tag === "Some" && found.value.passwordHash !== null
        ? { account: found.value, hash: found.value.passwordHash }
        : undefined;
      const device = stored && deviceOf(input.deviceToken, stored.account.id, stored.hash);
      const counter: readonly [Counter, string] = device === undefined
        ? ["login-account", email]
        : ["login-device", device];
      const wait = yield* throttle.reserve(...counter);
      if (wait > 0) return yield* throttled(wait);
      reserved.push(counter);
      // an oversized password cannot be right either: counted, not hashed
      if (typeof input.password !== "string" || input.password.length > maxPasswordLength * 4) {
        return yield* Effect.fail(new InvalidCredentials());
      }
      const matches = yield* verifyPassword(input.password, stored?.hash ?? (yield* decoyHash));
      if (!matches || stored === undefined) return yield* Effect.fail(new InvalidCredentials());
      const { account } = stored;
      if (account.disabled) return yield* Effect.fail(new AccountDisabled());
      if ((yield* Mailer).enabled && !account.emailConfirmed) {
        return yield* Effect.fail(new EmailUnconfirmed());
      }
      yield* throttle.release("login-address", address);
      yield* throttle.clear(...counter);
      reserved.length = 0;
      let hash = stored.hash;
      if (yield* needsRehash(hash)) {
        // the upgrade waits for a quieter moment when the hashes are busy: the log-in does not
        const upgraded = yield* hashPassword(input.password).pipe(Effect.orElseSucceed(() => undefined));
        if (upgraded !== undefined && (yield* store.upgradePasswordHash(account.id, hash, upgraded))) {
          hash = upgraded;
        }
      }
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
        deviceToken: newDeviceToken(account.id, hash),
      };
    });
    // a wrong password keeps its count; any other failure was no guess and gives the attempt back
    return yield* attempt.pipe(
      Effect.tapError((e) => e._tag === "InvalidCredentials" ? Effect.void : giveBack),
    );
  });
