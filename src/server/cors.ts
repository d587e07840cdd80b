/**
 * CORS as the operator configures it (`CORS_ORIGINS`). None by default: the spec keeps API keys out of client-side
 * code, so no other site's page may call the API from a browser unless named. When set, preflights are answered
 * and the key headers allowed; no credentials mode (keys travel in headers, never in cookies).
 * OPTIONS without an allowed origin answers 204 with `Allow` (the path's methods) and no CORS headers.
 */
import type { CorsOrigins } from "@layers/config.ts";
import { addVary } from "@src/http/compression.ts";

const allowedHeaders = "apikey, authorization, content-type, x-request-id, if-none-match";
const exposedHeaders =
  "x-request-id, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, retry-after, etag, x-sql-statements";
/** Seconds a browser may reuse a preflight (Chromium caps it at 2 h). */
const maxAgeSeconds = 600;

/** The `Access-Control-Allow-Origin` value for this request's `Origin`, or undefined when it is not allowed. */
export const allowedOrigin = (origins: CorsOrigins, origin: string | null): string | undefined => {
  if (origin === null) return undefined;
  if (origins === "*") return "*";
  return origins.includes(origin) ? origin : undefined;
};

const corsEnabled = (origins: CorsOrigins) => origins === "*" || origins.length > 0;

/** Adds the CORS headers an actual (non-preflight) answer carries. */
export const withCors = (origins: CorsOrigins, request: Request, headers: Headers) => {
  if (!corsEnabled(origins)) return;
  if (origins !== "*") addVary(headers, "Origin");
  const allowed = allowedOrigin(origins, request.headers.get("origin"));
  if (allowed === undefined) return;
  headers.set("access-control-allow-origin", allowed);
  headers.set("access-control-expose-headers", exposedHeaders);
};

/** The answer to `OPTIONS` on an existing path whose methods are `allow`. */
export const optionsAnswer = (
  origins: CorsOrigins,
  request: Request,
  allow: ReadonlyArray<string>,
): Response => {
  const methods = [...new Set([...allow, ...allow.includes("GET") ? ["HEAD"] : [], "OPTIONS"])].join(", ");
  const headers = new Headers({ allow: methods, "cache-control": "no-store" });
  const origin = allowedOrigin(origins, request.headers.get("origin"));
  if (origin !== undefined && request.headers.has("access-control-request-method")) {
    headers.set("access-control-allow-origin", origin);
    headers.set("access-control-allow-methods", methods);
    headers.set("access-control-allow-headers", allowedHeaders);
    headers.set("access-control-max-age", String(maxAgeSeconds));
    for (const v of ["Origin", "Access-Control-Request-Method", "Access-Control-Request-Headers"]) {
      addVary(headers, v);
    }
  }
  return new Response(null, { status: 204, headers });
};
