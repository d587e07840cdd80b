/**
 * Account mails through a real SMTP server (smtp-server on a random local port, the mailer the service builds
 * for SMTP_URL): sign-up mails a confirmation link and log-in waits for it; each link works once; "forgot
 * password" mails a reset link for known addresses only, and says nothing either way. No secret in the logs.
 */
import assert from "node:assert/strict";
import { Option } from "effect";
import { createTestDatabase } from "../support/databases.ts";
import { accountsHarness, linkIn, outcome, smtpMailer, smtpServer, tokenOf } from "../support/accounts.ts";
import { signUp } from "@src/programs/accounts/sign_up.ts";
import { logIn } from "@src/programs/accounts/log_in.ts";
import { confirmEmail } from "@src/programs/accounts/confirm_email.ts";
import { requestPasswordReset } from "@src/programs/accounts/request_password_reset.ts";
import { resetPassword } from "@src/programs/accounts/reset_password.ts";
import { sessionOf } from "@src/programs/accounts/session_of.ts";

const password = "the first password";

Deno.test({
  name: "account mails over SMTP",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const db = await createTestDatabase("accounts_smtp");
    const smtp = await smtpServer();
    try {
      const { run, ok, logs } = await accountsHarness(db.sql, {
        mailer: await smtpMailer(smtp.url),
        env: { PUBLIC_URL: "https://data.example.test/" },
      });
      const secrets = [password];
      const address = "192.0.2.20";

      await t.step(
        "sign-up mails a confirmation link; log-in waits for it; the link works once",
        async () => {
          const { confirmationSent, key } = await ok(signUp({ email: "Mail@Example.com", password }));
          secrets.push(key.secret);
          assert.equal(confirmationSent, true);
          const mail = await smtp.mailTo("mail@example.com");
          assert.match(mail.raw, /Subject: Confirm your email address/);
          const link = linkIn(mail);
          assert.ok(link.startsWith("https://data.example.test/confirm-email?token="), link);
          secrets.push(tokenOf(link));
          assert.equal(
            outcome(await run(logIn({ email: "mail@example.com", password, clientAddress: address }))),
            "EmailUnconfirmed",
          );
          await ok(confirmEmail(tokenOf(link)));
          assert.equal(outcome(await run(confirmEmail(tokenOf(link)))), "TokenInvalid");
          const { session } = await ok(
            logIn({ email: "mail@example.com", password, clientAddress: address }),
          );
          secrets.push(session.secret);
        },
      );

      await t.step("forgot password: a reset link for a known address, which works once", async () => {
        const before = await ok(logIn({ email: "mail@example.com", password, clientAddress: address }));
        secrets.push(before.session.secret, "the second password");
        await ok(requestPasswordReset("MAIL@example.com"));
        const mail = await smtp.mailTo("mail@example.com");
        assert.match(mail.raw, /Subject: Reset your password/);
        const link = linkIn(mail);
        assert.ok(link.startsWith("https://data.example.test/reset-password?token="), link);
        const token = tokenOf(link);
        secrets.push(token);
        await ok(resetPassword(token, "the second password"));
        assert.equal(outcome(await run(resetPassword(token, "a third password!"))), "TokenInvalid");
        assert.ok(Option.isNone(await ok(sessionOf(before.session.secret))), "the reset ended old sessions");
        assert.equal(
          outcome(await run(logIn({ email: "mail@example.com", password, clientAddress: address }))),
          "InvalidCredentials",
        );
        await ok(
          logIn({ email: "mail@example.com", password: "the second password", clientAddress: address }),
        );
      });

      await t.step(
        "a reset link also confirms the address (a lost confirmation mail is no dead end)",
        async () => {
          await ok(signUp({ email: "lost@example.com", password }));
          await smtp.mailTo("lost@example.com"); // the confirmation, ignored
          await ok(requestPasswordReset("lost@example.com"));
          const token = tokenOf(linkIn(await smtp.mailTo("lost@example.com")));
          secrets.push(token);
          await ok(resetPassword(token, "recovered password"));
          await ok(
            logIn({ email: "lost@example.com", password: "recovered password", clientAddress: address }),
          );
        },
      );

      await t.step("unknown and malformed addresses: no mail, and no difference outwardly", async () => {
        const count = smtp.mails.length;
        assert.equal(outcome(await run(requestPasswordReset("nobody@example.com"))), "success");
        assert.equal(outcome(await run(requestPasswordReset("not an address"))), "success");
        await new Promise((r) => setTimeout(r, 500));
        assert.equal(smtp.mails.length, count);
      });

      await t.step("reset mails per account are limited", async () => {
        for (let i = 0; i < 8; i++) await ok(requestPasswordReset("mail@example.com"));
        await new Promise((r) => setTimeout(r, 1000));
        const mails = smtp.mails.filter((m) => m.to === "mail@example.com");
        // one was used above already: 5 an hour in all
        assert.equal(mails.length, 4);
        for (const m of mails) secrets.push(tokenOf(linkIn(m)));
      });

      await t.step("no secret appears in the logs", () => {
        const text = logs.join("\n");
        for (const secret of secrets) assert.ok(!text.includes(secret), "a secret was logged");
      });
    } finally {
      await smtp.close();
      await db.close();
    }
  },
});
