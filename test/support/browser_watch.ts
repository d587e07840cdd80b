/**
 * What the browser tests share: Debian's Chromium, launched headless, and a watch on a page's policy violations
 * and errors.
 */
import { type Browser, chromium, type Page } from "playwright-core";

export const executablePath = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";

/** Debian's Chromium, headless, without the background traffic a first run would start. */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });

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
