/**
 * "Forgot password": mails a reset link when the address has an account and SMTP is configured. It always
 * succeeds outwardly, so it does not tell which addresses have accounts; mails per account are limited (the
 * `login-account` counter is not touched: asking for a link is not a failed log-in).
 */
import { Effect, Either, Option } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { AttemptThrottle } from "@layers/attempt_throttle.ts";
import { AppConfig, publicBaseUrl } from "@layers/config.ts";
import { Mailer } from "@layers/mailer.ts";
import { normalizeEmail } from "@src/domain/accounts.ts";
import { newSecret, resetLinkHours } from "./secrets.ts";

export const requestPasswordReset = (emailText: string) =>
  Effect.gen(function* () {
    const mailer = yield* Mailer;
    const email = Either.getOrUndefined(normalizeEmail(emailText));
    if (!mailer.enabled || email === undefined) return;
    const throttle = yield* AttemptThrottle;
    if ((yield* throttle.reserve("mail-account", email)) > 0) return;
    const store = yield* AccountStore;
    const account = yield* store.byEmail(email);
    if (Option.isNone(account) || account.value.disabled) return;
    const secret = newSecret();
    yield* store.addToken(
      account.value.id,
      "reset",
      secret,
      new Date(Date.now() + resetLinkHours * 3_600_000),
    );
    const link = `${publicBaseUrl(yield* AppConfig)}/reset-password?token=${secret}`;
    yield* mailer.send({
      to: email,
      subject: "Reset your password",
      text: `Someone (we hope you) asked to reset the password of this account. Choose a new one here:\n\n` +
        `${link}\n\nThe link works once, for ${resetLinkHours} hour. If you did not ask, ignore this mail: ` +
        `your password stays as it is.\n`,
    }).pipe(
      Effect.catchAll((e) => Effect.logWarning(`password reset: mail not sent: ${e.message}`)),
      // sent in the background: how long the SMTP server takes must not tell that the account exists
      Effect.forkDaemon,
    );
  });
