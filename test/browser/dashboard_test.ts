/**
 * The key dashboard end to end in Debian's Chromium (playwright-core), against the real service over real HTTP,
 * on whichever backend the run uses (PGlite, or PostgreSQL + Redis with TEST_DATABASE_URL and REDIS_URL): sign
 * up, the FREE key shown once and working, a preprod-only key refused on mainnet, the usage chart counting the
 * calls, rotation (the old secret refused within a second), revocation with its confirmation step, log-out.
 * Every page is checked for policy violations and sideways scrolling at 375 px, and photographed at desktop
 * and phone widths into test-output/screenshots/ (git-ignored).
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { createTestEnvironment } from "../support/environment.ts";
import { startService } from "../support/service.ts";
import { launchChromium, watch } from "../support/browser_watch.ts";

const screenshots = new URL("../../test-output/screenshots/", import.meta.url);
const backend = Deno.env.get("TEST_DATABASE_URL") ? "postgres" : "pglite";
const desktop = { width: 1280, height: 900 };
const phone = { width: 375, height: 812 };

/** Photographs the page at both widths (full length), checking nothing scrolls sideways on the phone. */
const photograph = async (page: Page, name: string) => {
  await page.screenshot({ path: new URL(`${name}-desktop.png`, screenshots).pathname, fullPage: true });
  await page.setViewportSize(phone);
  const [scrollWidth, innerWidth] = await page.evaluate<[number, number]>(
    "[document.documentElement.scrollWidth, globalThis.innerWidth]",
  );
  if (scrollWidth > innerWidth) {
    const wide = await page.evaluate<Array<string>>(`[...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > globalThis.innerWidth)
      .map((e) => e.tagName + "." + e.className + ": " + (e.textContent ?? "").trim().slice(0, 40))`);
    assert.fail(`${name}: ${scrollWidth} px wide at ${innerWidth} px: ${wide.join(" | ")}`);
  }
  await page.screenshot({ path: new URL(`${name}-phone.png`, screenshots).pathname, fullPage: true });
  await page.setViewportSize(desktop);
};

const api = async (base: string, path: string, key: string) => {
  const r = await fetch(`${base}${path}`, { headers: { apikey: key } });
  const body = await r.json();
  return { status: r.status, message: String(body?.error?.message ?? body?.message ?? "") };
};

/** Polls until `check` holds (the service's key cache is polled every 250 ms, usage flushed every second). */
const eventually = async (what: string, withinMs: number, check: () => Promise<boolean>) => {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > withinMs) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - started;
};

Deno.test({
  name: `the key dashboard in headless Chromium (${backend})`,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await Deno.mkdir(screenshots, { recursive: true });
    const environment = await createTestEnvironment("dashboard_browser");
    const service = await startService(environment.env);
    const browser = await launchChromium();
    const base = service.base;
    const context = await browser.newContext({ viewport: desktop });
    const page = await context.newPage();
    const watched = await watch(page);
    const email = `someone.${Date.now()}@example.com`;
    const password = "correct horse battery staple";
    let freeKey = "";
    let preprodKey = "";
    let preprodKeyUrl = "";
    try {
      await t.step("the landing page links to sign-up; sign-up shows the FREE key once", async () => {
        await page.goto(`${base}/`);
        await page.getByRole("link", { name: "Sign up" }).first().click();
        await page.waitForURL(`${base}/signup`);
        await photograph(page, "signup");
        await page.getByLabel("E-mail address", { exact: true }).fill(email);
        await page.getByLabel("Password", { exact: false }).fill(password);
        await page.getByRole("button", { name: "Create account" }).click();
        await page.locator("#secret").waitFor();
        freeKey = (await page.locator("#secret").textContent())!.trim();
        assert.match(freeKey, /^[A-Za-z0-9]+_[A-Za-z0-9]{32}$/);
        assert.ok(await page.getByText("Store this key now").isVisible());
        assert.ok(
          await page.getByRole("button", { name: "Copy" }).isVisible(),
          "the copy button (script ran)",
        );
        await photograph(page, "key-shown-once");
      });

      await t.step("the FREE key works over real HTTP", async () => {
        const r = await api(base, "/v2/explorer/mainnet/stats", freeKey);
        assert.equal(r.status, 200, r.message);
      });

      await t.step("the dashboard lists the key; the secret is not shown again", async () => {
        await page.getByRole("link", { name: /go to the dashboard/ }).click();
        await page.waitForURL(`${base}/dashboard`);
        assert.equal(await page.locator("table.stack tbody tr").count(), 1);
        assert.ok(!(await page.content()).includes(freeKey), "the secret is not on the dashboard");
      });

      await t.step("a preprod-only key: created, refused on mainnet naming the network", async () => {
        await page.getByRole("link", { name: "Create a key" }).click();
        await page.waitForURL(`${base}/dashboard/keys/new`);
        assert.ok(await page.getByLabel("PAID").isDisabled(), "a FREE account cannot pick PAID");
        assert.ok(await page.getByText(/PAID keys need a PAID plan/).isVisible(), "and is told why");
        await page.getByLabel("Name").fill("preprod only");
        await page.getByLabel("mainnet").uncheck();
        await photograph(page, "create-key");
        await page.getByRole("button", { name: "Create the key" }).click();
        await page.locator("#secret").waitFor();
        preprodKey = (await page.locator("#secret").textContent())!.trim();
        const mainnet = await api(base, "/v2/explorer/mainnet/stats", preprodKey);
        assert.equal(mainnet.status, 403);
        assert.match(mainnet.message, /mainnet/);
        for (let i = 0; i < 2; i++) {
          const preprod = await api(base, "/v2/explorer/preprod/stats", preprodKey);
          assert.equal(preprod.status, 200, preprod.message);
        }
        const graphql = await fetch(`${base}/v1/preprod/graphql`, {
          method: "POST",
          headers: { apikey: preprodKey, "content-type": "application/json" },
          body: JSON.stringify({ query: "{ __typename }" }),
        });
        await graphql.body?.cancel();
        assert.equal(graphql.status, 200);
        await page.getByRole("link", { name: /show the key/ }).click();
        await page.waitForURL(/\/dashboard\/keys\/\d+$/);
        preprodKeyUrl = page.url();
      });

      await t.step("the usage chart shows those calls", async () => {
        // the calls reach the database with the flush of their second: they may land in two flushes
        await eventually("all three calls counted", 10_000, async () => {
          await page.goto(preprodKeyUrl);
          const summary = await page.locator("#key-usage p.muted").textContent();
          return /^3 requests in the last 30 days/.test(summary ?? "");
        });
        // the refused mainnet call is not usage: two explorer calls and one GraphQL query, stacked in one bar
        assert.ok(
          (await page.locator("#key-usage svg.chart-wide rect").count()) > 0,
          "the chart has its bar",
        );
        assert.deepEqual(await page.locator("#key-usage .legend li").allTextContents(), [
          "Explorer",
          "GraphQL",
        ]);
        await page.locator("#key-usage summary").click();
        assert.equal(await page.locator("#key-usage table.figures tbody tr").count(), 1);
        assert.deepEqual(
          (await page.locator("#key-usage table.figures tbody td").allTextContents()).map((t) => t.trim()),
          ["2", "1", "3"],
        );
        await photograph(page, "key-usage");
        await page.goto(`${base}/dashboard`);
        await eventually("the account's usage", 10_000, async () => {
          await page.goto(`${base}/dashboard`);
          return /^4 requests/.test((await page.locator("#account-usage p.muted").textContent()) ?? "");
        });
        await photograph(page, "keys");
      });

      await t.step("rotate: a new secret once, the old one refused within a second", async () => {
        await page.goto(preprodKeyUrl);
        await page.getByRole("button", { name: "Rotate the secret" }).click();
        await page.locator("#secret").waitFor();
        const rotated = (await page.locator("#secret").textContent())!.trim();
        assert.notEqual(rotated, preprodKey);
        const ms = await eventually(
          "the old secret refused",
          1_000,
          async () => (await api(base, "/v2/explorer/preprod/stats", preprodKey)).status === 401,
        );
        console.log(`old secret refused ${ms} ms after the rotation answered`);
        assert.equal((await api(base, "/v2/explorer/preprod/stats", rotated)).status, 200);
        preprodKey = rotated;
      });

      await t.step("revoke, after a confirmation: 401 Key revoked", async () => {
        await page.goto(preprodKeyUrl);
        await page.getByRole("link", { name: "Revoke this key…" }).click();
        await page.waitForURL(/\/revoke$/);
        await page.getByRole("button", { name: "Yes, revoke it" }).click();
        await page.waitForURL(/\?done=revoked$/);
        await eventually("revoked everywhere", 1_000, async () => {
          const r = await api(base, "/v2/explorer/preprod/stats", preprodKey);
          return r.status === 401 && r.message === "Key revoked";
        });
        assert.equal((await page.locator(".status").first().textContent())?.trim(), "revoked");
      });

      await t.step("the account page", async () => {
        await page.getByRole("link", { name: "Account" }).click();
        await page.waitForURL(`${base}/dashboard/account`);
        await photograph(page, "account");
      });

      await t.step("log out: /dashboard asks to log in again", async () => {
        await page.getByRole("button", { name: "Log out" }).click();
        await page.waitForURL(/\/login/);
        await page.goto(`${base}/dashboard`);
        await page.waitForURL(`${base}/login`);
        assert.ok(await page.getByRole("heading", { name: "Log in" }).isVisible());
        await photograph(page, "login");
      });

      assert.deepEqual(watched, { violations: [], errors: [] });
    } finally {
      await browser.close();
      await service.stop();
      await environment.close();
    }
  },
});
