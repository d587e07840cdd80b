/** What the browser tests share: where Chromium is, and a watch on a page's policy violations and errors. */
import type { Page } from "playwright-core";

export const executablePath = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";

export interface Watched {
  readonly violations: Array<string>;
  readonly errors: Array<string>;
}

/** Collects CSP violations (the DOM event and Chromium's console report) and page errors. */
export const watch = async (page: Page): Promise<Watched> => {
  const watched: Watched = { violations: [], errors: [] };
  await page.exposeFunction("reportViolation", (text: string) => watched.violations.push(text));
  await page.addInitScript({
    content: `document.addEventListener("securitypolicyviolation",
      (e) => globalThis.reportViolation(e.violatedDirective + " blocked " + e.blockedURI));`,
  });
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) watched.violations.push(m.text());
  });
  page.on("pageerror", (e) => watched.errors.push(String(e)));
  return watched;
};
