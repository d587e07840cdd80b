/**
 * Cross-site request forgery: every state-changing form carries a token (the session's, or the `cds_form`
 * cookie's before log-in) that another site cannot read, and the browser's `Origin` (or, lacking it, `Referer`)
 * must be this service. Both must hold; either failing is refused with a 403 page.
 */
import { timingSafeEqual } from "node:crypto";

/** Constant-time comparison; false for a missing or differently sized token. */
export const tokenMatches = (given: string | undefined, expected: string | undefined): boolean => {
  if (!given || !expected) return false;
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  return a.byteLength === b.byteLength && timingSafeEqual(a, b);
};

const originOf = (text: string): string | undefined => {
  try {
    return new URL(text).origin;
  } catch {
    return undefined;
  }
};

/**
 * Whether the request comes from one of our own pages: its `Origin` (or, lacking one, `Referer`) is the host it
 * was sent to (either scheme: a TLS-terminating proxy may stand between) or PUBLIC_URL. Browsers send `Origin`
 * with every form post; a request with neither is refused, as is a browser's `Sec-Fetch-Site: cross-site`.
 */
export const fromOurPages = (request: Request, url: URL, publicUrl: string | undefined): boolean => {
  const site = request.headers.get("sec-fetch-site");
  if (site === "cross-site" || site === "same-site") return false;
  const ours = new Set([url.origin]);
  const host = request.headers.get("host");
  if (host) ours.add(`http://${host}`).add(`https://${host}`);
  const pub = publicUrl && originOf(publicUrl);
  if (pub) ours.add(pub);
  const origin = request.headers.get("origin");
  if (origin !== null) return ours.has(origin);
  const referer = request.headers.get("referer");
  if (referer !== null) {
    const o = originOf(referer);
    return o !== undefined && ours.has(o);
  }
  return false;
};
