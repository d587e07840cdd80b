/**
 * The dashboard's mailed links over real HTTP, with a real SMTP server: with SMTP configured a new account must
 * confirm its address before it logs in (opening the link confirms nothing, its button does, and shows the
 * account's first key), sign-up answers a taken address exactly as a new one (its owner is mailed instead), and
 * a forgotten password is replaced through the mailed link, once.
 */
import assert from "node:assert/strict";
import { createTestEnvironment } from "../support/environment.ts";
import { startService } from "../support/service.ts";
import { smtpServer } from "../support/accounts.ts";
import { csrfOf, DashboardClient, secretOf } from "../support/dashboard_client.ts";

/** A mailed link's path and query (quoted-printable soft breaks and escapes undone). */
const linkIn = (raw: string, path: string): string => {
  const text = raw.replace(/=\r?\n/g, "").replace(
    /=([0-9A-F]{2})/g,
    (_, h) => String.fromCharCode(parseInt(h, 16)),
  );
  const m = text.match(new RegExp(`https?://[^\\s]+(${path}\\?token=[A-Za-z0-9_-]+)`));
  if (!m) throw new Error(`no ${path} link in the mail:\n${text}`);
  return m[1]!;
};

Deno.test({
  name: "the dashboard's mailed links: confirm the address, reset the password",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const smtp = await smtpServer();
    const environment = await createTestEnvironment("dashboard_mail");
    const service = await startService({ ...environment.env, SMTP_URL: smtp.url });
    const base = service.base;
    const email = `mailed.${crypto.randomUUID().slice(0, 8)}@example.com`;
    const password = "the first long password";
    try {
      /** A page with its addresses (and the one-time token cookie's value) made alike, to compare two. */
      const shape = (text: string) => text.replace(/[a-z0-9.]+@example\.com/g, "EMAIL");

      let checkYourMail = "";
      await t.step(
        "sign-up asks to check the mail, shows no key yet; log-in waits for the confirmation",
        async () => {
          const c = new DashboardClient(base);
          const r = await c.submit("/signup", "/signup", { email, password });
          assert.equal(r.status, 200);
          assert.equal(secretOf(r.text), undefined, "the key comes with the confirmation");
          assert.match(r.text, /Check your mail/);
          assert.ok(r.text.includes(email));
          checkYourMail = r.text;
          assert.equal(c.cookies.get("cds_session"), undefined, "not logged in yet");
          const login = await c.logIn(email, password);
          assert.equal(login.status, 403);
          assert.match(login.text, /confirm your e-mail address first/);
        },
      );

      let key = "";
      await t.step(
        "opening the link shows a button; the button confirms and shows the key once",
        async () => {
          const link = linkIn((await smtp.mailTo(email)).raw, "/confirm-email");
          const c = new DashboardClient(base);
          const shown = await c.get(link);
          assert.equal(shown.status, 200);
          assert.match(shown.text, /Confirm my address/);
          assert.equal((await c.logIn(email, password)).status, 403, "opening it confirmed nothing");
          const token = new URL(link, base).searchParams.get("token")!;
          const confirmed = await c.post("/confirm-email", { csrf: csrfOf(shown.text)!, token });
          assert.equal(confirmed.status, 200);
          assert.match(confirmed.text, /Your address is confirmed/);
          key = secretOf(confirmed.text)!;
          assert.ok(key, "the first key is shown");
          assert.match(confirmed.text, /href="\/login\?done=confirmed"/);
          assert.match((await c.get("/login?done=confirmed")).text, /Your e-mail address is confirmed/);
          assert.equal((await c.logIn(email, password)).status, 303);
          assert.equal((await fetch(`${base}/v1/key`, { headers: { apikey: key } })).status, 200);
          const again = await c.post("/confirm-email", { csrf: csrfOf(shown.text)!, token });
          assert.equal(again.status, 400, "the link works once");
          assert.equal(secretOf(again.text), undefined);
        },
      );

      await t.step(
        "sign-up with a taken address: the same page, nothing changed, the owner is told",
        async () => {
          const stranger = new DashboardClient(base);
          const taken = await stranger.submit("/signup", "/signup", {
            email: email.toUpperCase(),
            password: "a stranger's long password",
          });
          assert.equal(taken.status, 200, taken.text.slice(0, 500));
          assert.equal(shape(taken.text), shape(checkYourMail), "the answer tells nothing");
          const fresh = await stranger.submit("/signup", "/signup", {
            email: `fresh.${crypto.randomUUID().slice(0, 8)}@example.com`,
            password,
          });
          assert.equal(fresh.status, taken.status);
          assert.equal(shape(fresh.text), shape(taken.text));
          const notice = (await smtp.mailTo(email)).raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
          assert.match(notice, /Subject: Someone tried to sign up with your address/);
          assert.match(notice, /\/forgot-password/);
          const owner = new DashboardClient(base);
          assert.equal((await owner.logIn(email, password)).status, 303, "the password is unchanged");
          assert.equal((await owner.logIn(email, "a stranger's long password")).status, 401);
          assert.equal((await fetch(`${base}/v1/key`, { headers: { apikey: key } })).status, 200);
        },
      );

      await t.step("a forgotten password is replaced through the mailed link, once", async () => {
        const c = new DashboardClient(base);
        const asked = await c.submit("/forgot-password", "/forgot-password", { email });
        assert.equal(asked.status, 200);
        assert.match(asked.text, /If an account has this address/);
        const unknown = await c.submit("/forgot-password", "/forgot-password", {
          email: "nobody@example.com",
        });
        assert.match(
          unknown.text,
          /If an account has this address/,
          "the same answer for an unknown address",
        );
        const link = linkIn((await smtp.mailTo(email)).raw, "/reset-password");
        const token = new URL(link, base).searchParams.get("token")!;
        const page = await c.get(link);
        assert.equal(page.status, 200);
        const weak = await c.post("/reset-password", { csrf: csrfOf(page.text)!, token, password: "short" });
        assert.equal(weak.status, 400);
        assert.match(weak.text, /at least 12 characters/);
        const next = "the second long password";
        const reset = await c.post("/reset-password", { csrf: csrfOf(page.text)!, token, password: next });
        assert.equal(reset.status, 303);
        assert.equal(reset.headers.get("location"), "/login?done=reset");
        assert.equal((await c.logIn(email, password)).status, 401, "the old password is gone");
        assert.equal((await c.logIn(email, next)).status, 303);
        const again = await c.post("/reset-password", {
          csrf: csrfOf(page.text)!,
          token,
          password: "a third long password",
        });
        assert.equal(again.status, 400);
        assert.match(again.text, /This link cannot be used/);
      });
    } finally {
      await service.stop();
      await environment.close();
      await smtp.close();
    }
  },
});
