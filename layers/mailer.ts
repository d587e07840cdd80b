/**
 * `Mailer`: account mails (email confirmation, password reset). With `SMTP_URL` set, nodemailer sends them
 * through that server; without it there is no mail at all (`enabled` false: sign-ups are usable at once and the
 * operator prints reset links with `npm run accounts -- reset-link`). A mail's text holds a secret link, so
 * neither it nor the server's conversation is ever logged.
 */
import { Context, Data, Effect, Layer, Option, Redacted } from "effect";
import { AppConfig } from "./config.ts";

export interface Mail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

export class MailFailed extends Data.TaggedError("MailFailed")<{ readonly message: string }> {}

export interface MailerShape {
  readonly enabled: boolean;
  readonly send: (mail: Mail) => Effect.Effect<void, MailFailed>;
}

export class Mailer extends Context.Tag("Mailer")<Mailer, MailerShape>() {}

export const noMailer: MailerShape = {
  enabled: false,
  send: () => Effect.fail(new MailFailed({ message: "no SMTP server is configured (SMTP_URL)" })),
};

/** Mails through the SMTP server at `url`, from `from`; a send waits at most 30 s. */
export const makeSmtpMailer = (url: string, from: string): Effect.Effect<MailerShape> =>
  Effect.promise(async () => {
    const { default: nodemailer } = await import("nodemailer");
    const transport = nodemailer.createTransport(url, { from });
    Object.assign(transport.options, {
      logger: false,
      debug: false,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
    return {
      enabled: true,
      send: (mail) =>
        Effect.tryPromise({
          try: () => transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text }),
          // the server's reply, never the mail: it holds the link
          catch: (e) =>
            new MailFailed({ message: `SMTP: ${e instanceof Error ? e.message.slice(0, 200) : String(e)}` }),
        }).pipe(
          Effect.asVoid,
          Effect.timeoutFail({
            duration: "30 seconds",
            onTimeout: () => new MailFailed({ message: "SMTP: no answer within 30 s" }),
          }),
        ),
    } satisfies MailerShape;
  });

export const MailerLive: Layer.Layer<Mailer, never, AppConfig> = Layer.effect(
  Mailer,
  Effect.flatMap(AppConfig, (config) =>
    Option.match(config.smtpUrl, {
      onNone: () => Effect.succeed(noMailer),
      onSome: (url) => makeSmtpMailer(Redacted.value(url), config.mailFrom),
    })),
);
