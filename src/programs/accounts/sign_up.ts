/**
 * Sign-up (issue 16): an account on the FREE plan and its first FREE key, made together in one transaction, so a
 * failure leaves neither. With SMTP configured a confirmation link is mailed and log-in waits for it; without,
 * the account is usable at once and its first session is opened in the same transaction (with a device token
 * for the browser), so what shows the key's secret never depends on a log-in that may be throttled. Sign-ups
 * count per client address (`AttemptThrottle`, reserved before the work), so one address cannot mint accounts
 * (and FREE keys) in bulk. The key's secret is returned here once and never again.
 */
import { Effect } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { AttemptThrottle } from "@layers/attempt_throttle.ts";
import { AppConfig, publicBaseUrl } from "@layers/config.ts";
import { hashPassword } from "@layers/password_hash.ts";
import { Mailer } from "@layers/mailer.ts";
import { allPermissions, checkPassword, normalizeEmail } from "@src/domain/accounts.ts";
import { LoginThrottled } from "@src/domain/account_errors.ts";
import { addressGroup } from "@src/domain/client_address.ts";
import { newDeviceToken } from "./device_token.ts";
import { confirmLinkHours, newSecret, sessionDays } from "./secrets.ts";

/** The name of the key every account starts with. */
export const firstKeyName = "Default key";

export const signUp = (input: { email: string; password: string; clientAddress?: string }) =>
  Effect.gen(function* () {
    const email = yield* normalizeEmail(input.email);
    yield* checkPassword(input.password, email);
    const throttle = yield* AttemptThrottle;
    const address = input.clientAddress === undefined ? undefined : addressGroup(input.clientAddress);
    if (address !== undefined) {
      const wait = yield* throttle.reserve("signup-address", address);
      if (wait > 0) {
        return yield* Effect.fail(new LoginThrottled({ retryAfterSeconds: Math.ceil(wait / 1000) }));
      }
    }
    const store = yield* AccountStore;
    const mailer = yield* Mailer;
    // a sign-up the hashes were too busy for did not happen: it does not count
    const passwordHash = yield* hashPassword(input.password).pipe(
      Effect.tapError(() =>
        address === undefined ? Effect.void : throttle.release("signup-address", address)
      ),
    );
    const confirmToken = mailer.enabled
      ? { secret: newSecret(), expiresAt: new Date(Date.now() + confirmLinkHours * 3_600_000) }
      : undefined;
    const session = mailer.enabled ? undefined : {
      secret: newSecret(),
      csrfToken: newSecret(),
      expiresAt: new Date(Date.now() + sessionDays * 86_400_000),
    };
    const { account, key } = yield* store.signUp({
      email,
      passwordHash,
      confirmed: !mailer.enabled,
      key: { name: firstKeyName, tier: "FREE", permissions: allPermissions, expiresAt: null },
      confirmToken,
      session,
    });
    if (confirmToken) {
      const link = `${publicBaseUrl(yield* AppConfig)}/confirm-email?token=${confirmToken.secret}`;
      // a mail that does not go out is no reason to undo the account: a reset link confirms the address too
      yield* mailer.send({
        to: email,
        subject: "Confirm your email address",
        text: `Welcome. Confirm your email address to log in:\n\n${link}\n\n` +
          `The link works once, for ${confirmLinkHours} hours. If you did not sign up, ignore this mail.\n`,
      }).pipe(Effect.catchAll((e) => Effect.logWarning(`sign-up: confirmation mail not sent: ${e.message}`)));
    }
    return {
      account,
      key: { id: key.record.id, secret: key.secret, record: key.record },
      confirmationSent: confirmToken !== undefined,
      /** Without mail the account is usable at once: its first session, and a device token for the browser. */
      session,
      deviceToken: session && newDeviceToken(account.id, passwordHash),
    };
  });
