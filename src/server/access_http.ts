/**
 * HTTP side of access control: where a request carries its key, and how refusals and budgets appear on the wire
 * (spec: Authentication, Errors, "Rate-limit signals").
 */
import type { AccessDenied } from "@layers/access.ts";
import type { LimitDecision } from "@layers/rate_limiter.ts";
import { json } from "./responses.ts";

/**
 * The key from the `apikey` header (the reference), or the forms the spec's troubleshooting examples use:
 * `Authorization: Bearer <key>`, and the `apikey` / `apiKey` query parameters (the WebSocket form).
 */
export const apiKeyOf = (request: Request, url: URL): string | undefined => {
  const header = request.headers.get("apikey");
  if (header !== null) return header.trim();
  const authorization = request.headers.get("authorization");
  if (authorization !== null) {
    const m = authorization.match(/^Bearer\s+(\S+)\s*$/i);
    return m ? m[1] : "";
  }
  return url.searchParams.get("apikey") ?? url.searchParams.get("apiKey") ?? undefined;
};

/** `X-RateLimit-*` headers: the per-second limit, what is left of it, and seconds until the window resets. */
export const rateLimitHeaders = (limit: LimitDecision | undefined): Record<string, string> =>
  limit
    ? {
      "x-ratelimit-limit": String(limit.limit),
      "x-ratelimit-remaining": String(limit.remaining),
      "x-ratelimit-reset": String(Math.max(1, Math.ceil(limit.resetMs / 1000))),
    }
    : {};

/** The spec's auth/limit envelope `{error: {code, message}}`, with `Retry-After` on 429. */
export const deniedResponse = (denied: AccessDenied): Response =>
  json({ error: { code: denied.status, message: denied.message } }, denied.status, {
    ...rateLimitHeaders(denied.limit),
    ...(denied.status === 429 && denied.limit
      ? { "retry-after": String(Math.max(1, Math.ceil(denied.limit.resetMs / 1000))) }
      : {}),
    ...(denied.status === 401 ? { "www-authenticate": 'apikey realm="cardano-data-service"' } : {}),
  });

/**
 * Keyed answers are `private`: a shared cache or CDN must not hand one caller's answer (with its per-key
 * X-RateLimit-* figures) to another. `Vary: apikey, Authorization` was the alternative, but it would still let a
 * shared cache store copies indexed by the secret, and cannot cover the key in the query string form.
 */
export const keyedCaching = (headers: Headers) => {
  const directives = headers.get("cache-control");
  if (directives === null) headers.set("cache-control", "private, no-store");
  else if (!/\bprivate\b|\bno-store\b/.test(directives)) {
    headers.set(
      "cache-control",
      /\bpublic\b/.test(directives) ? directives.replace(/\bpublic\b/, "private") : `private, ${directives}`,
    );
  }
};

/** 429 for an address that failed authentication too often, in the same envelope, with `Retry-After`. */
export const throttledResponse = (waitMs: number): Response => {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return json(
    {
      error: {
        code: 429,
        message: `Too many failed authentication attempts from this address; try again in ${seconds} s`,
      },
    },
    429,
    { "retry-after": String(seconds) },
  );
};
