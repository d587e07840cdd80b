/**
 * The dashboard's mailed links over real HTTP, with a real SMTP server: with SMTP configured a new account must
 * confirm its address before it logs in (opening the link confirms nothing, its button does), and a forgotten
 * password is replaced through the mailed link, once.
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
      await t.step("sign-up shows the key once and asks to confirm; log-in waits for it", async () => {
        const c = new DashboardClient(base);
        const r = await c.submit("/signup", "/signup", { email, password });
        assert.equal(r.status, 200);
        assert.ok(secretOf(r.text), "the key is shown once");
        assert.match(r.text, /confirm your e-mail address/);
        assert.equal(c.cookies.get("cds_session"), undefined, "not logged in yet");
        const login = await c.logIn(email, password);
        assert.equal(login.status, 403);
        assert.match(login.text, /confirm your e-mail address first/);
      });

      await t.step("opening the link shows a button; the button confirms", async () => {
        const link = linkIn((await smtp.mailTo(email)).raw, "/confirm-email");
        const c = new DashboardClient(base);
        const shown = await c.get(link);
        assert.equal(shown.status, 200);
        assert.match(shown.text, /Confirm my address/);
        assert.equal((await c.logIn(email, password)).status, 403, "opening it confirmed nothing");
        const token = new URL(link, base).searchParams.get("token")!;
        const confirmed = await c.post("/confirm-email", { csrf: csrfOf(shown.text)!, token });
        assert.equal(confirmed.status, 303);
        assert.equal(confirmed.headers.get("location"), "/login?done=confirmed");
        assert.match((await c.get("/login?done=confirmed")).text, /Your e-mail address is confirmed/);
        assert.equal((await c.logIn(email, password)).status, 303);
      });

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
