/**
 * Sign-up with SMTP configured (issue 19): the answer is the same whether the address is new or has an account
 * already, so sign-up tells no one which addresses have accounts. A new address gets its account (unconfirmed,
 * without a key yet: the first key comes with the confirmation, `confirmEmail`) and a confirmation link; an
 * address with an account gets a mail saying someone tried to sign up with it, pointing to "forgot password".
 * Both cost the same password hash, and both mails go out in the background, so neither the time taken nor the
 * answer differs. Mails to an existing account count against its reset-mail allowance.
 */
import { Effect, Option } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { AttemptThrottle } from "@layers/attempt_throttle.ts";
import { AppConfig, publicBaseUrl } from "@layers/config.ts";
import { type Mail, Mailer } from "@layers/mailer.ts";
import { confirmLinkHours, newSecret } from "./secrets.ts";
import { admitSignUp, type SignUpInput } from "./sign_up.ts";

export const signUpByMail = (input: SignUpInput) =>
  Effect.gen(function* () {
    const mailer = yield* Mailer;
    if (!mailer.enabled) return yield* Effect.dieMessage("signUpByMail needs SMTP: without it use signUp");
    const { email, hash } = yield* admitSignUp(input);
    const store = yield* AccountStore;
    const base = publicBaseUrl(yield* AppConfig);
    const passwordHash = yield* hash;
    const confirmToken = {
      secret: newSecret(),
      expiresAt: new Date(Date.now() + confirmLinkHours * 3_600_000),
    };
    const created = yield* store.signUp({
      email,
      passwordHash,
      confirmed: false,
      key: undefined,
      confirmToken,
    })
      .pipe(Effect.as(true), Effect.catchTag("EmailTaken", () => Effect.succeed(false)));
    const mail: Mail | undefined = created
      ? {
        to: email,
        subject: "Confirm your email address",
        text: `Welcome. Confirm your email address to get your API key and log in:\n\n` +
          `${base}/confirm-email?token=${confirmToken.secret}\n\n` +
          `The link works once, for ${confirmLinkHours} hours. If you did not sign up, ignore this mail.\n`,
      }
      : yield* takenNotice(email, base);
    if (mail) {
      yield* mailer.send(mail).pipe(
        Effect.catchAll((e) => Effect.logWarning(`sign-up: mail not sent: ${e.message}`)),
        // in the background: how long the SMTP server takes must not tell which mail it was
        Effect.forkDaemon,
      );
    }
    return { email };
  });

/** The mail to an address that has an account already; none when its mail allowance is spent or it is disabled. */
const takenNotice = (email: string, base: string) =>
  Effect.gen(function* () {
    const throttle = yield* AttemptThrottle;
    // reserved before the read: concurrent sign-ups cannot send more notices than the allowance
    if ((yield* throttle.reserve("mail-account", email)) > 0) return undefined;
    const account = yield* (yield* AccountStore).byEmail(email);
    if (Option.isNone(account) || account.value.disabled) {
      yield* throttle.release("mail-account", email);
      return undefined;
    }
    return {
      to: email,
      subject: "Someone tried to sign up with your address",
      text: `Someone (perhaps you) tried to sign up at ${base} with this email address. It has an account ` +
        `already, so nothing was created or changed.\n\nIf it was you: log in at ${base}/login, or, if you ` +
        `forgot your password, choose a new one at ${base}/forgot-password.\n\n` +
        `If it was not you, ignore this mail: your account and its password stay as they are.\n`,
    } satisfies Mail;
  });
