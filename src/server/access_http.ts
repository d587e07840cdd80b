/**
 * HTTP side of access control: where a request carries its key, and how keyed answers may be cached (spec:
 * Authentication). Refusals are answered by the REST mapper (src/rest/failures.ts).
 */

/**
 * The key from the `apikey` header (the reference), or the forms the spec's troubleshooting examples use:
 * `Authorization: Bearer <key>`, and the `apikey` / `apiKey` query parameters (the WebSocket form).
 */
export const apiKeyOf = (request: Request, query: Readonly<Record<string, string>>): string | undefined => {
  const header = request.headers.get("apikey");
  if (header !== null) return header.trim();
  const authorization = request.headers.get("authorization");
  if (authorization !== null) {
    const m = authorization.match(/^Bearer\s+(\S+)\s*$/i);
    return m ? m[1] : "";
  }
  return query.apikey ?? query.apiKey;
};

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
