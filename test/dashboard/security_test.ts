/**
 * The dashboard's defences over real HTTP against the real service: every state-changing form refuses a
 * missing or wrong CSRF token and a foreign Origin (and changes nothing), the session id is new at each log-in
 * and a cookie set before it is never adopted, another account's keys are 404, 20 wrong passwords are
 * throttled, the cookies carry their attributes (Secure and `__Host-` behind HTTPS, where every answer also
 * carries Strict-Transport-Security), and no secret reaches the logs.
 */
import assert from "node:assert/strict";
import { createTestEnvironment } from "../support/environment.ts";
import { startService } from "../support/service.ts";
import { csrfOf, DashboardClient } from "../support/dashboard_client.ts";

const password = "a long enough password 1";
let n = 0;
const newEmail = () => `user${++n}.${crypto.randomUUID().slice(0, 8)}@example.com`;

const keyStatus = async (
  base: string,
  secret: string,
) => (await fetch(`${base}/v2/explorer/preprod/stats`, { headers: { apikey: secret } }).then(async (r) => {
  await r.body?.cancel();
  return r.status;
}));

Deno.test({
  name: "dashboard security over real HTTP",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const environment = await createTestEnvironment("dashboard_security");
    const service = await startService({ ...environment.env, LOG_LEVEL: "debug" });
    const base = service.base;
    /** Everything secret the test saw: none of it may appear in the service's logs. */
    const secrets = new Set<string>();
    try {
      const owner = new DashboardClient(base);
      const ownerEmail = newEmail();
      const freeKey = await owner.signUp(ownerEmail, password);
      secrets.add(freeKey).add(password).add(owner.cookies.get("cds_session")!).add(
        owner.cookies.get("cds_device")!,
      );
      const { secret: second, id: secondId } = await owner.createKey({
        name: "second",
        tier: "FREE",
        networks: ["mainnet", "preprod"],
        families: ["rest", "explorer"],
      });
      secrets.add(second);
      const dashboard = await owner.get("/dashboard");
      const sessionCsrf = csrfOf(dashboard.text)!;
      secrets.add(sessionCsrf);

      await t.step("the session cookie's attributes", async () => {
        const r = await new DashboardClient(base).submit("/login", "/login", { email: ownerEmail, password });
        assert.equal(r.status, 303);
        assert.equal(r.headers.get("location"), "/dashboard");
        const cookie = r.setCookies.find((s) => s.startsWith("cds_session="))!;
        secrets.add(cookie.split(";")[0]!.slice("cds_session=".length));
        const attributes = cookie.split(";").slice(1).map((a) => a.trim().toLowerCase());
        assert.ok(attributes.includes("httponly"), cookie);
        assert.ok(attributes.includes("samesite=strict"), cookie);
        assert.ok(attributes.includes("path=/"), cookie);
        assert.ok(!attributes.includes("secure"), "not Secure on plain http without PUBLIC_URL");
        assert.equal(r.headers.get("strict-transport-security"), null, "no HSTS on plain http");
        const device = r.setCookies.find((s) => s.startsWith("cds_device="))!;
        secrets.add(device.split(";")[0]!.slice("cds_device=".length));
        assert.match(device, /HttpOnly/);
        assert.match(device, /SameSite=Strict/);
        assert.match(device, /Max-Age=15552000/);
      });

      await t.step(
        "every state-changing form refuses a missing or wrong token, or a foreign Origin",
        async () => {
          const forms: Array<[string, Record<string, string | Array<string>>]> = [
            ["/logout", {}],
            ["/dashboard/keys/new", {
              name: "forged",
              tier: "FREE",
              networks: ["mainnet"],
              families: ["rest"],
            }],
            [`/dashboard/keys/${secondId}/rename`, { name: "forged" }],
            [`/dashboard/keys/${secondId}/rotate`, {}],
            [`/dashboard/keys/${secondId}/deactivate`, {}],
            [`/dashboard/keys/${secondId}/activate`, {}],
            [`/dashboard/keys/${secondId}/revoke`, {}],
            ["/dashboard/account/password", { current: password, next: "a forged new password" }],
            ["/dashboard/account/delete", { password }],
          ];
          for (const [path, fields] of forms) {
            for (
              const [label, extra, headers] of [
                ["no token", {}, {}],
                ["a wrong token", { csrf: "x".repeat(sessionCsrf.length) }, {}],
                ["another site's Origin", { csrf: sessionCsrf }, { origin: "https://evil.example" }],
                ["no Origin", { csrf: sessionCsrf }, { origin: "" }],
                ["a cross-site fetch", { csrf: sessionCsrf }, { "sec-fetch-site": "cross-site" }],
              ] as const
            ) {
              const h: Record<string, string> = { ...headers };
              const r = await owner.request("POST", path, {
                body: new URLSearchParams(
                  Object.entries({ ...fields, ...extra }).flatMap(([k, v]) =>
                    (typeof v === "string" ? [v] : v).map((one) => [k, one])
                  ),
                ).toString(),
                headers: {
                  "content-type": "application/x-www-form-urlencoded",
                  ...(h.origin === "" ? {} : { origin: h.origin ?? base }),
                  ...(h["sec-fetch-site"] ? { "sec-fetch-site": h["sec-fetch-site"] } : {}),
                },
              });
              assert.equal(r.status, 403, `${path} with ${label}: ${r.status}`);
              assert.match(r.text, /This form cannot be accepted/);
            }
          }
          // nothing changed: still logged in, both keys work, the key keeps its name, the password still works
          assert.equal((await owner.get("/dashboard")).status, 200);
          assert.equal(await keyStatus(base, freeKey), 200);
          assert.equal(await keyStatus(base, second), 200);
          assert.match((await owner.get(`/dashboard/keys/${secondId}`)).text, /Key <q>second<\/q>/);
          assert.equal((await new DashboardClient(base).logIn(ownerEmail, password)).status, 303);
        },
      );

      await t.step("the forms before a session refuse a missing or wrong token too", async () => {
        for (
          const [page, path, fields] of [
            ["/signup", "/signup", { email: newEmail(), password }],
            ["/login", "/login", { email: ownerEmail, password }],
            ["/forgot-password", "/forgot-password", { email: ownerEmail }],
            ["/reset-password?token=abc", "/reset-password", { token: "abc", password }],
            ["/confirm-email?token=abc", "/confirm-email", { token: "abc" }],
          ] as const
        ) {
          const c = new DashboardClient(base);
          const shown = await c.get(page);
          const token = csrfOf(shown.text);
          for (const csrf of [undefined, "y".repeat(43)]) {
            const r = await c.post(path, csrf === undefined ? fields : { ...fields, csrf });
            assert.equal(r.status, 403, `${path} ${csrf ? "wrong" : "no"} token: ${r.status}`);
          }
          // the page's own token, but no cookie (another site cannot read or set it)
          const stranger = new DashboardClient(base);
          if (token) {
            assert.equal(
              (await stranger.post(path, { ...fields, csrf: token })).status,
              403,
              `${path} no cookie`,
            );
          }
          // a foreign Origin with the right token and cookie
          if (token) {
            const r = await c.post(path, { ...fields, csrf: token }, { origin: "https://evil.example" });
            assert.equal(r.status, 403, `${path} foreign origin`);
          }
        }
      });

      await t.step("session fixation: a new session id at log-in, a planted one never adopted", async () => {
        const c = new DashboardClient(base);
        const planted = "planted-session-id-0123456789abcdef0123456789";
        c.cookies.set("cds_session", planted);
        const r = await c.logIn(ownerEmail, password);
        assert.equal(r.status, 303);
        const issued = c.cookies.get("cds_session")!;
        secrets.add(issued);
        assert.notEqual(issued, planted);
        const again = new DashboardClient(base);
        await again.logIn(ownerEmail, password);
        assert.notEqual(again.cookies.get("cds_session"), issued, "each log-in gets a new session id");
        secrets.add(again.cookies.get("cds_session")!);
        const withPlanted = new DashboardClient(base);
        withPlanted.cookies.set("cds_session", planted);
        const d = await withPlanted.get("/dashboard");
        assert.equal(d.status, 303);
        assert.equal(d.headers.get("location"), "/login");
        // the old session of a client that logs in again ends
        const first = new DashboardClient(base);
        await first.logIn(ownerEmail, password);
        const old = first.cookies.get("cds_session")!;
        secrets.add(old);
        await first.logIn(ownerEmail, password);
        secrets.add(first.cookies.get("cds_session")!);
        const stale = new DashboardClient(base);
        stale.cookies.set("cds_session", old);
        assert.equal((await stale.get("/dashboard")).status, 303);
      });

      await t.step("another account's key ids are 404, and nothing changes", async () => {
        const other = new DashboardClient(base);
        secrets.add(await other.signUp(newEmail(), password));
        secrets.add(other.cookies.get("cds_session")!);
        const csrf = csrfOf((await other.get("/dashboard")).text)!;
        assert.equal((await other.get(`/dashboard/keys/${secondId}`)).status, 404);
        assert.equal((await other.get(`/dashboard/keys/${secondId}/revoke`)).status, 404);
        for (const action of ["rename", "rotate", "deactivate", "activate", "revoke"]) {
          const r = await other.post(`/dashboard/keys/${secondId}/${action}`, { csrf, name: "taken over" });
          assert.equal(r.status, 404, `${action}: ${r.status}`);
        }
        for (const id of ["999999", "0", "-1", "abc", "1.5", "99999999999999999999"]) {
          assert.equal((await other.get(`/dashboard/keys/${id}`)).status, 404, id);
        }
        assert.equal(await keyStatus(base, second), 200);
        assert.match((await owner.get(`/dashboard/keys/${secondId}`)).text, /Key <q>second<\/q>/);
      });

      await t.step(
        "deactivate, activate and rename from the dashboard reach the API within a second",
        async () => {
          const within = async (status: number) => {
            const until = Date.now() + 1_000;
            while ((await keyStatus(base, second)) !== status) {
              if (Date.now() > until) assert.fail(`not ${status} within a second`);
              await new Promise((r) => setTimeout(r, 50));
            }
          };
          let r = await owner.post(`/dashboard/keys/${secondId}/deactivate`, { csrf: sessionCsrf });
          assert.equal(r.headers.get("location"), `/dashboard/keys/${secondId}?done=deactivated`);
          await within(403);
          assert.match((await owner.get(r.headers.get("location")!)).text, /The key is deactivated/);
          r = await owner.post(`/dashboard/keys/${secondId}/activate`, { csrf: sessionCsrf });
          assert.equal(r.status, 303);
          await within(200);
          r = await owner.post(`/dashboard/keys/${secondId}/rename`, { csrf: sessionCsrf, name: "renamed" });
          assert.equal(r.status, 303);
          assert.match((await owner.get(`/dashboard/keys/${secondId}`)).text, /Key <q>renamed<\/q>/);
          r = await owner.post(`/dashboard/keys/${secondId}/rename`, { csrf: sessionCsrf, name: "second" });
          assert.equal(r.status, 303);
        },
      );

      await t.step("a hostile key name is shown as text, never as markup", async () => {
        const name = `<img src=x onerror="alert(1)">'&`;
        const { id } = await owner.createKey({
          name,
          tier: "FREE",
          networks: ["preprod"],
          families: ["rest"],
        });
        for (const path of ["/dashboard", `/dashboard/keys/${id}`, `/dashboard/keys/${id}/revoke`]) {
          const page = (await owner.get(path)).text;
          assert.ok(!page.includes("<img src=x"), path);
          assert.ok(page.includes("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&amp;"), path);
        }
      });

      await t.step("without a session, /dashboard pages redirect to /login", async () => {
        const c = new DashboardClient(base);
        for (
          const path of [
            "/dashboard",
            "/dashboard/keys/new",
            `/dashboard/keys/${secondId}`,
            "/dashboard/account",
          ]
        ) {
          const r = await c.get(path);
          assert.equal(r.status, 303, path);
          assert.equal(r.headers.get("location"), "/login");
        }
      });

      await t.step("20 wrong passwords are throttled, kindly", async () => {
        const c = new DashboardClient(base);
        const statuses: Array<number> = [];
        let last = "";
        for (let i = 0; i < 20; i++) {
          const r = await c.logIn(ownerEmail, `wrong password number ${i}`);
          statuses.push(r.status);
          last = r.text;
        }
        assert.equal(statuses[0], 401);
        assert.equal(statuses.at(-1), 429, statuses.join(" "));
        assert.match(last, /Too many attempts[^<]*try again in \d+ (seconds|minutes)/);
        const right = await c.logIn(ownerEmail, password);
        assert.equal(right.status, 429, "the right password waits too");
        assert.ok(Number(right.headers.get("retry-after")) > 0);
      });

      await t.step("the service's logs hold no password, session id, CSRF token or key secret", () => {
        assert.ok(service.lines.length > 20, `${service.lines.length} log lines`);
        for (const line of service.lines) {
          for (const secret of secrets) {
            assert.ok(!line.includes(secret), `a secret in the log: ${line.slice(0, 200)}`);
          }
        }
      });
    } finally {
      await service.stop();
    }

    await t.step(
      "behind HTTPS the cookies are Secure and __Host- (PUBLIC_URL https:// or COOKIE_SECURE=true); HSTS with an https:// PUBLIC_URL only",
      async () => {
        const settings: Array<{ env: Record<string, string>; hsts: string | null }> = [
          { env: { PUBLIC_URL: "https://api.example" }, hsts: "max-age=31536000" },
          { env: { PUBLIC_URL: "https://api.example", HSTS_MAX_AGE: "600" }, hsts: "max-age=600" },
          { env: { COOKIE_SECURE: "true", HSTS_MAX_AGE: "600" }, hsts: null },
        ];
        for (const { env: extra, hsts } of settings) {
          const secure = await startService({ ...environment.env, ...extra });
          try {
            const shown = await new DashboardClient(secure.base).get("/signup");
            const formCookie = shown.setCookies.find((s) => s.startsWith("__Host-cds_form="))!;
            assert.ok(formCookie, `${JSON.stringify(extra)}: ${shown.setCookies}`);
            assert.match(formCookie, /;\s*Secure/i, JSON.stringify(extra));
            assert.match(formCookie, /Path=\//);
            assert.doesNotMatch(formCookie, /Domain=/i);
            assert.equal(shown.headers.get("strict-transport-security"), hsts, JSON.stringify(extra));
            for (const path of ["/health", "/api/public/tx-status", "/nowhere"]) {
              const r = await fetch(`${secure.base}${path}`);
              await r.body?.cancel();
              assert.equal(
                r.headers.get("strict-transport-security"),
                hsts,
                `${path} ${JSON.stringify(extra)}`,
              );
            }
            const signup = new DashboardClient(secure.base, extra.PUBLIC_URL ?? secure.base);
            const answer = await signup.submit("/signup", "/signup", { email: newEmail(), password });
            const cookie = answer.setCookies.find((s) => s.startsWith("__Host-cds_session="))!;
            assert.ok(cookie, `${JSON.stringify(extra)}: ${answer.setCookies}`);
            assert.match(cookie, /;\s*Secure/i, JSON.stringify(extra));
            assert.match(cookie, /HttpOnly/);
            assert.match(cookie, /SameSite=Strict/);
            assert.ok(
              answer.setCookies.some((s) => s.startsWith("__Host-cds_device=") && /;\s*Secure/i.test(s)),
            );
            // the session works under its __Host- name (sent back as browsers send it over HTTPS)
            assert.equal((await signup.get("/dashboard")).status, 200);
          } finally {
            await secure.stop();
          }
        }
      },
    );
    await environment.close();
  },
});
