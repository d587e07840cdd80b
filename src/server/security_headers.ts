/**
 * Headers that keep browsers from misusing our answers: no MIME sniffing anywhere; on everything a browser could
 * render (HTML pages, and any answer that is not JSON), no framing (clickjacking), a Content-Security-Policy
 * (pages bring their own, see src/http/html_page.ts; others get one that allows nothing), and no referrer
 * leaking a page's `?apikey=` elsewhere. JSON answers, which a browser never runs or renders as a page under
 * `nosniff`, carry only what API clients use: each header costs every answer about 2 µs of Deno's time.
 */
const noContent = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const isJson = (contentType: string | null) =>
  contentType !== null && contentType.startsWith("application/") &&
  /^application\/(?:[\w.-]+\+)?json\b/.test(contentType);

export const withSecurityHeaders = (
  headers: Headers,
  contentType: string | null = headers.get("content-type"),
) => {
  headers.set("x-content-type-options", "nosniff");
  if (isJson(contentType)) return;
  headers.set("x-frame-options", "DENY");
  if (!headers.has("content-security-policy")) headers.set("content-security-policy", noContent);
  // a page may ask for less strictness (the dashboard's forms need their Origin sent to this origin)
  if (contentType?.startsWith("text/html") && !headers.has("referrer-policy")) {
    headers.set("referrer-policy", "no-referrer");
  }
};

/**
 * Strict-Transport-Security when people reach the service over HTTPS (PUBLIC_URL https://): browsers then use
 * HTTPS only, so no plain-HTTP answer can be forged on the way. Not when it is served over plain HTTP, where the
 * header means nothing and would only mislead. `maxAge` 0 = off.
 */
export const hstsValue = (publicUrl: string | undefined, maxAge: number): string | undefined =>
  maxAge > 0 && publicUrl?.startsWith("https://") ? `max-age=${maxAge}` : undefined;
