/**
 * Account mails through a real SMTP server (smtp-server on a random local port, the mailer the service builds
 * for SMTP_URL): sign-up mails a confirmation link and log-in waits for it; the confirmation gives the first
 * key; each link works once; sign-up answers alike for a taken address and mails its owner instead; "forgot
 * password" mails a reset link for known addresses only, and says nothing either way. No secret in the logs.
 */
import assert from "node:assert/strict";
import { Option } from "effect";
import { createTestDatabase } from "../support/databases.ts";
import { accountsHarness, linkIn, outcome, smtpMailer, smtpServer, tokenOf } from "../support/accounts.ts";
import { signUp } from "@src/programs/accounts/sign_up.ts";
import { signUpByMail } from "@src/programs/accounts/sign_up_by_mail.ts";
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
        "sign-up mails a confirmation link; log-in waits for it; the link gives the first key, once",
        async () => {
          assert.deepEqual(await ok(signUpByMail({ email: "Mail@Example.com", password })), {
            email: "mail@example.com",
          });
          const mail = await smtp.mailTo("mail@example.com");
          assert.match(mail.raw, /Subject: Confirm your email address/);
          const link = linkIn(mail);
          assert.ok(link.startsWith("https://data.example.test/confirm-email?token="), link);
          secrets.push(tokenOf(link));
          assert.equal(
            outcome(await run(logIn({ email: "mail@example.com", password, clientAddress: address }))),
            "EmailUnconfirmed",
          );
          const { key } = await ok(confirmEmail(tokenOf(link)));
          assert.ok(key, "the confirmation makes the first key");
          assert.equal(key.record.name, "Default key");
          assert.equal(key.record.tier, "FREE");
          secrets.push(key.secret);
          assert.equal(outcome(await run(confirmEmail(tokenOf(link)))), "TokenInvalid");
          const { session } = await ok(
            logIn({ email: "mail@example.com", password, clientAddress: address }),
          );
          secrets.push(session.secret);
        },
      );

      await t.step(
        "sign-up answers alike for a taken address, changes nothing, and tells its owner by mail",
        async () => {
          await ok(signUpByMail({ email: "owner@example.com", password }));
          const confirmation = tokenOf(linkIn(await smtp.mailTo("owner@example.com")));
          secrets.push(confirmation, (await ok(confirmEmail(confirmation))).key!.secret);
          const taken = await ok(
            signUpByMail({ email: "OWNER@example.com", password: "an attacker's password" }),
          );
          const fresh = await ok(signUpByMail({ email: "fresh@example.com", password }));
          assert.deepEqual(taken, { email: "owner@example.com" });
          assert.deepEqual(fresh, { email: "fresh@example.com" });
          const notice = await smtp.mailTo("owner@example.com");
          const text = notice.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
          assert.match(text, /Subject: Someone tried to sign up with your address/);
          assert.match(text, /https:\/\/data\.example\.test\/forgot-password/);
          assert.doesNotMatch(text, /token=/, "no link that changes anything");
          assert.match((await smtp.mailTo("fresh@example.com")).raw, /Subject: Confirm your email address/);
          await ok(logIn({ email: "owner@example.com", password, clientAddress: address }));
          assert.equal(
            outcome(
              await run(
                logIn({
                  email: "owner@example.com",
                  password: "an attacker's password",
                  clientAddress: address,
                }),
              ),
            ),
            "InvalidCredentials",
          );
          // the notices count against the owner's mail allowance (5 an hour): no mail bombing through sign-up
          for (let i = 0; i < 6; i++) await ok(signUpByMail({ email: "owner@example.com", password }));
          await new Promise((r) => setTimeout(r, 1000));
          assert.equal(smtp.mails.filter((m) => m.to === "owner@example.com").length, 4);
        },
      );

      await t.step("the sign-up without mail refuses to run with SMTP configured", async () => {
        assert.match(outcome(await run(signUp({ email: "direct@example.com", password }))), /^defect/);
      });

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
          await ok(signUpByMail({ email: "lost@example.com", password }));
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
