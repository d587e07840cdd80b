/**
 * The dashboard's page frame and how a page leaves as a Response: one stylesheet and one script from this
 * origin, a policy that allows nothing else (no inline script or style at all), never cached (pages show
 * secrets and per-account figures).
 */
import { type Html, html } from "./html.ts";

/** The pages' Content-Security-Policy: everything from this origin only, forms post only here, no framing. */
export const dashboardPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const assetPaths = { css: "/dashboard/assets/dashboard.css", js: "/dashboard/assets/dashboard.js" };

/** Who is looking, for the navigation and the log-out form. */
export interface Viewer {
  readonly email: string;
  readonly csrfToken: string;
}

export type Section = "keys" | "new-key" | "account" | "login" | "signup" | "none";

export interface PageOptions {
  readonly title: string;
  readonly body: Html;
  readonly viewer?: Viewer;
  readonly section?: Section;
  /** Forms of one column (log-in, sign-up): a narrower page. */
  readonly narrow?: boolean;
}

const current = (section: Section | undefined, mine: Section) => section === mine ? "page" : undefined;

const navigation = (viewer: Viewer | undefined, section: Section | undefined): Html =>
  viewer
    ? html`<nav aria-label="Account">
  <a href="/dashboard" aria-current="${current(section, "keys")}">Keys</a>
  <a href="/dashboard/keys/new" aria-current="${current(section, "new-key")}">New key</a>
  <a href="/dashboard/account" aria-current="${current(section, "account")}">Account</a>
  <form class="inline" method="post" action="/logout">
    <input type="hidden" name="csrf" value="${viewer.csrfToken}">
    <button type="submit" class="link">Log out</button>
  </form>
</nav>`
    : html`<nav aria-label="Account"><a href="/login" aria-current="${
      current(section, "login")
    }">Log in</a> <a
      href="/signup" aria-current="${current(section, "signup")}">Sign up</a></nav>`;

/** An ARIA attribute left empty (no error, no hint, not the current page) says nothing: it is dropped. */
const emptyAria = / aria-[a-z]+=""/g;

export const pageHtml = (o: PageOptions): string =>
  html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>${o.title} · Cardano data service</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="${assetPaths.css}">
        <script src="${assetPaths.js}" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="site">
          <div class="bar">
      <a class="brand" href="/">Cardano data service</a>
      ${navigation(o.viewer, o.section)}
          </div>
        </header>
        <main id="main" class="${o.narrow ? "narrow" : ""}">
    ${o.body}
        </main>
        <footer class="site">
          <div class="bar">${o.viewer
            ? html`
              Signed in as ${o.viewer.email} ·
            `
            : ""}<a
              href="/docs">API documentation</a> · <a href="/health">Service health</a></div>
        </footer>
      </body>
    </html>
  `.text.replace(emptyAria, "");

export const pageResponse = (
  o: PageOptions & { readonly status?: number; readonly headers?: HeadersInit },
): Response => {
  const headers = new Headers(o.headers);
  headers.set("content-type", "text/html; charset=utf-8");
  headers.set("content-security-policy", dashboardPolicy);
  headers.set("cache-control", "no-store");
  // not no-referrer: with it, browsers send `Origin: null` on form posts, and csrf.ts checks the Origin
  headers.set("referrer-policy", "same-origin");
  return new Response(pageHtml(o), { status: o.status ?? 200, headers });
};

/** 303 See Other: after a form, the browser GETs the next page (a reload does not post again). */
export const seeOther = (location: string, headers: HeadersInit = {}): Response => {
  const h = new Headers(headers);
  h.set("location", location);
  h.set("cache-control", "no-store");
  return new Response(null, { status: 303, headers: h });
};
