/**
 * The HTML pages in a real browser (Debian's Chromium, driven by playwright-core) under the service's
 * Content-Security-Policy: no policy violations, the landing page renders, Swagger UI shows the operations, and
 * GraphiQL asks for a key, sends nothing without one, then runs a query with the key typed into the page.
 * Screenshots go to test-output/ (git-ignored). Slow: its own stage (`npm run test:browser`).
 */
import assert from "node:assert/strict";
import { createKey, createTestEnvironment } from "../support/environment.ts";
import { startService } from "../support/service.ts";
import { launchChromium, watch } from "../support/browser_watch.ts";

const screenshots = new URL("../../test-output/", import.meta.url);

Deno.test({
  name: "the HTML pages in headless Chromium",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await Deno.mkdir(screenshots, { recursive: true });
    const environment = await createTestEnvironment("browser");
    const service = await startService(environment.env);
    const browser = await launchChromium();
    try {
      const { key } = await createKey(environment.env, "--tier", "paid", "--name", "browser");
      const base = service.base;

      await t.step("the landing page", async () => {
        const page = await browser.newPage();
        const watched = await watch(page);
        const response = await page.goto(`${base}/`);
        assert.equal(response?.status(), 200);
        assert.equal(await page.locator("h1").textContent(), "Cardano data service");
        await page.screenshot({ path: new URL("landing.png", screenshots).pathname, fullPage: true });
        await page.getByRole("link", { name: "API documentation" }).click();
        await page.waitForURL(`${base}/docs`);
        assert.deepEqual(watched, { violations: [], errors: [] });
        await page.close();
      });

      await t.step(
        "the policy is enforced, and a violation would be seen: an injected inline script is blocked",
        async () => {
          const page = await browser.newPage();
          const watched = await watch(page);
          await page.goto(`${base}/`);
          const ran = await page.evaluate(`(() => {
          const s = document.createElement("script");
          s.textContent = "globalThis.injected = 1";
          document.body.append(s);
          return globalThis.injected ?? null;
        })()`);
          assert.equal(ran, null);
          await page.waitForTimeout(200);
          assert.ok(watched.violations.some((v) => /script-src/.test(v)), JSON.stringify(watched.violations));
          await page.close();
        },
      );

      await t.step("Swagger UI renders the operations under the CSP", async () => {
        const page = await browser.newPage();
        const watched = await watch(page);
        await page.goto(`${base}/docs`);
        await page.locator(".opblock").first().waitFor({ timeout: 30_000 });
        const operations = await page.locator(".opblock").count();
        assert.ok(operations >= 10, `${operations} operations`);
        assert.ok(
          await page.locator(".opblock-summary-path", { hasText: "/v2/explorer/{network}/stats" }).count() >=
            1,
        );
        await page.screenshot({ path: new URL("docs.png", screenshots).pathname });
        assert.deepEqual(watched, { violations: [], errors: [] });
        await page.close();
      });

      await t.step("GraphiQL asks for a key, then runs a query with it", async () => {
        const page = await browser.newPage();
        const watched = await watch(page);
        const posts: Array<Record<string, string>> = [];
        page.on("request", (r) => {
          if (r.method() === "POST" && new URL(r.url()).pathname === "/v1/graphql") posts.push(r.headers());
        });
        await page.goto(`${base}/v1/graphql`);
        await page.locator(".graphiql-execute-button").waitFor({ timeout: 30_000 });
        assert.equal(await page.locator("#key-status").textContent(), "No key yet: queries need one.");
        await page.locator(".graphiql-execute-button").click();
        await page.locator(".result-window", { hasText: "Enter your API key" }).waitFor({ timeout: 10_000 });
        await page.screenshot({ path: new URL("graphiql-no-key.png", screenshots).pathname });
        assert.equal(posts.length, 0, "nothing is sent without a key");

        await page.locator("#apikey").fill(key);
        await page.getByRole("button", { name: "Use key" }).click();
        await page.locator("#key-status", { hasText: "Key set for this tab." }).waitFor();
        await page.locator(".graphiql-execute-button").click();
        await page.locator(".result-window", { hasText: "block_no" }).waitFor({ timeout: 30_000 });
        const result = await page.locator(".result-window").textContent();
        assert.doesNotMatch(result ?? "", /Invalid API key|errors/);
        assert.ok(
          posts.length >= 1 && posts.every((h) => h.apikey === key),
          "the typed key, as the apikey header",
        );
        assert.equal(await page.evaluate(() => sessionStorage.getItem("cds-apikey")), key);
        await page.screenshot({ path: new URL("graphiql-query.png", screenshots).pathname });

        // a reload keeps the key for the tab; ?apikey= is taken once and dropped from the address bar
        const fresh = await browser.newPage();
        await fresh.goto(`${base}/v1/preprod/graphql?apikey=${key}`);
        await fresh.locator("#key-status", { hasText: "Key set for this tab." }).waitFor({ timeout: 30_000 });
        assert.equal(new URL(fresh.url()).search, "");
        await fresh.close();
        assert.deepEqual(watched, { violations: [], errors: [] });
        await page.close();
      });
    } finally {
      await browser.close();
      await service.stop();
      await environment.close();
    }
  },
});
