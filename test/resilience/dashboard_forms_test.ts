/**
 * Hostile input to the dashboard's forms over real HTTP (issue 16): huge fields and bodies, wrong content
 * types, missing fields, bytes that are not UTF-8 (raw and percent-encoded), repeated fields, junk cookies and
 * key ids. Each is a clear 4xx HTML page, never a 500, and the service keeps serving.
 */
import assert from "node:assert/strict";
import { createTestEnvironment } from "../support/environment.ts";
import { startService } from "../support/service.ts";
import { csrfOf, DashboardClient } from "../support/dashboard_client.ts";

const password = "a long enough password 2";

Deno.test({
  name: "hostile input to the dashboard's forms: clear 4xx pages, never 500",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const environment = await createTestEnvironment("dashboard_hostile");
    const service = await startService(environment.env);
    const base = service.base;
    try {
      const user = new DashboardClient(base);
      await user.signUp(`hostile.${crypto.randomUUID().slice(0, 8)}@example.com`, password);
      const csrf = csrfOf((await user.get("/dashboard")).text)!;
      const keyId = Number((await user.get("/dashboard")).text.match(/href="\/dashboard\/keys\/(\d+)"/)![1]);
      const visitor = new DashboardClient(base);
      const formToken = csrfOf((await visitor.get("/signup")).text)!;

      /** Posts raw bytes to `path` as `client` with the right Origin; checks a 4xx HTML page. */
      const expect4xx = async (
        client: DashboardClient,
        path: string,
        body: BodyInit,
        status: number | RegExp,
        type = "application/x-www-form-urlencoded",
        extra: Record<string, string> = {},
      ) => {
        const r = await client.request("POST", path, {
          body,
          headers: { "content-type": type, origin: base, ...extra },
        });
        if (typeof status === "number") {
          assert.equal(r.status, status, `${path}: ${r.status} ${r.text.slice(0, 300)}`);
        } else assert.match(String(r.status), status, `${path}: ${r.status}`);
        assert.ok(r.status >= 400 && r.status < 500, `${path}: ${r.status}`);
        assert.match(r.headers.get("content-type") ?? "", /^text\/html/);
        assert.doesNotMatch(r.text, /Internal error/);
        return r;
      };

      const sessionForms = [
        "/dashboard/keys/new",
        `/dashboard/keys/${keyId}/rename`,
        "/dashboard/account/password",
        "/dashboard/account/delete",
      ];
      const publicForms = ["/signup", "/login", "/forgot-password", "/reset-password", "/confirm-email"];

      await t.step("a body past 16 KiB: 413", async () => {
        const huge = `csrf=${csrf}&name=${"a".repeat(20_000)}`;
        for (const path of sessionForms) await expect4xx(user, path, huge, 413);
        for (const path of publicForms) {
          await expect4xx(visitor, path, `csrf=${formToken}&email=${"a".repeat(20_000)}`, 413);
        }
      });

      await t.step("huge fields within the body limit: the form again with the reason", async () => {
        const long = "a".repeat(10_000);
        let r = await expect4xx(
          visitor,
          "/signup",
          `csrf=${formToken}&email=${long}%40example.com&password=x`,
          400,
        );
        assert.match(r.text, /e-mail address cannot be used/);
        r = await expect4xx(
          visitor,
          "/signup",
          `csrf=${formToken}&email=big%40example.com&password=${long}`,
          400,
        );
        assert.match(r.text, /at most 1024 characters/);
        r = await expect4xx(
          visitor,
          "/login",
          `csrf=${formToken}&email=big%40example.com&password=${long}`,
          /^4/,
        );
        r = await expect4xx(
          user,
          "/dashboard/keys/new",
          `csrf=${csrf}&name=${long}&tier=FREE&networks=mainnet&families=rest`,
          400,
        );
        assert.match(r.text, /Name: at most 64 characters/);
        r = await expect4xx(user, `/dashboard/keys/${keyId}/rename`, `csrf=${csrf}&name=${long}`, 400);
        assert.match(r.text, /at most 64 characters/);
      });

      await t.step("wrong content types: 415", async () => {
        for (const type of ["application/json", "multipart/form-data; boundary=x", "text/plain", ""]) {
          for (const path of [...sessionForms, "/logout"]) {
            await expect4xx(user, path, JSON.stringify({ csrf }), 415, type);
          }
          for (const path of publicForms) await expect4xx(visitor, path, "{}", 415, type);
        }
      });

      await t.step("missing fields: the form again with the reason", async () => {
        let r = await expect4xx(visitor, "/signup", `csrf=${formToken}`, 400);
        assert.match(r.text, /e-mail address/);
        r = await expect4xx(visitor, "/login", `csrf=${formToken}`, /^4/);
        r = await expect4xx(
          user,
          "/dashboard/keys/new",
          `csrf=${csrf}&tier=FREE&networks=mainnet&families=rest`,
          400,
        );
        assert.match(r.text, /Name: required/);
        r = await expect4xx(user, "/dashboard/keys/new", `csrf=${csrf}&name=x&tier=FREE&families=rest`, 400);
        assert.match(r.text, /Networks: choose at least one/);
        r = await expect4xx(
          user,
          "/dashboard/keys/new",
          `csrf=${csrf}&name=x&tier=FREE&networks=preprod`,
          400,
        );
        assert.match(r.text, /APIs: choose at least one/);
        r = await expect4xx(
          user,
          "/dashboard/keys/new",
          `csrf=${csrf}&name=x&tier=GOLD&networks=preprod&families=rest`,
          400,
        );
        r = await expect4xx(
          user,
          "/dashboard/keys/new",
          `csrf=${csrf}&name=x&tier=FREE&networks=preprod&families=rest&expires=2020-01-01`,
          400,
        );
        assert.match(r.text, /Expiry: must be in the future/);
        r = await expect4xx(
          user,
          "/dashboard/keys/new",
          `csrf=${csrf}&name=x&tier=FREE&networks=preprod&families=rest&expires=tomorrow`,
          400,
        );
        r = await expect4xx(
          user,
          "/dashboard/keys/new",
          `csrf=${csrf}&name=x&tier=FREE&networks=moon&families=rest`,
          400,
        );
        assert.match(r.text, /Networks: unknown/);
        r = await expect4xx(
          user,
          "/dashboard/keys/new",
          `csrf=${csrf}&name=x&tier=PAID&networks=preprod&families=rest`,
          403,
        );
        assert.match(r.text, /PAID keys need a PAID plan/);
        await expect4xx(user, "/dashboard/account/password", `csrf=${csrf}`, /^4/);
        await expect4xx(user, "/dashboard/account/delete", `csrf=${csrf}`, /^4/);
        r = await expect4xx(visitor, "/reset-password", `csrf=${formToken}`, 400);
      });

      await t.step("bytes that are not UTF-8: 400", async () => {
        const raw = new Uint8Array([...new TextEncoder().encode(`csrf=${csrf}&name=`), 0xff, 0xfe, 0x80]);
        await expect4xx(user, "/dashboard/keys/new", raw, 400);
        await expect4xx(user, `/dashboard/keys/${keyId}/rename`, `csrf=${csrf}&name=%FF%FE`, 400);
        await expect4xx(visitor, "/signup", `csrf=${formToken}&email=%C0%AF%40example.com&password=x`, 400);
        await expect4xx(visitor, "/login", `csrf=${formToken}&email=%E0%80&password=%`, 400);
      });

      await t.step("repeated fields: 400 (check boxes excepted)", async () => {
        const r = await expect4xx(user, `/dashboard/keys/${keyId}/rename`, `csrf=${csrf}&name=a&name=b`, 400);
        assert.match(r.text, /more than once/);
        await expect4xx(user, "/dashboard/keys/new", `csrf=${csrf}&csrf=${csrf}&name=a`, 400);
        await expect4xx(visitor, "/login", `csrf=${formToken}&email=a%40b.co&email=c%40d.co&password=x`, 400);
        await expect4xx(user, "/dashboard/keys/new", `csrf=${csrf}&${"f=1&".repeat(100)}name=a`, 400);
      });

      await t.step("junk cookies, tokens and key ids: 4xx pages or the log-in page", async () => {
        for (const cookie of ["cds_session=" + "x".repeat(8000), "cds_session=%%%", "cds_session", "=;;=;"]) {
          const r = await fetch(`${base}/dashboard`, { headers: { cookie }, redirect: "manual" });
          await r.body?.cancel();
          assert.ok([303, 400, 431].includes(r.status), `${cookie.slice(0, 20)}: ${r.status}`);
        }
        for (
          const path of ["/reset-password", "/confirm-email", "/reset-password?token=" + "t".repeat(5000)]
        ) {
          const r = await visitor.get(path);
          assert.ok(r.status < 500, `${path.slice(0, 40)}: ${r.status}`);
        }
        const bad = await visitor.submit("/reset-password?token=nope", "/reset-password", {
          token: "nope",
          password: "a new long enough password",
        });
        assert.equal(bad.status, 400);
        assert.match(bad.text, /This link cannot be used/);
        for (const id of ["%00", "..%2F..", "1%20", "%FF", "9".repeat(400)]) {
          const r = await user.get(`/dashboard/keys/${id}`);
          assert.ok(r.status === 404, `${id}: ${r.status}`);
        }
      });

      await t.step("the service still serves", async () => {
        assert.equal((await user.get("/dashboard")).status, 200);
        assert.equal(
          await fetch(`${base}/health`).then(async (r) => (await r.body?.cancel(), r.status)),
          200,
        );
      });
    } finally {
      await service.stop();
      await environment.close();
    }
  },
});
