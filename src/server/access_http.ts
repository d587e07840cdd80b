/**
 * HTTP side of access control: where a request carries its key, and how keyed answers may be cached (spec:
 * Authentication). Refusals are answered in each route's dialect (`Route.refuse`; REST's envelope by default).
 */

/** A source's value, or undefined when it says nothing (absent or blank). */
const given = (value: string | null | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
};

/**
 * The key, from the first source that gives one: the `apikey` header (the reference), Blockfrost's `project_id`
 * header, the key in the path (`/key/{key}/…`, on the routes that take it, for clients that take only a base
 * URL), the `apikey` / `apiKey` query parameter (the spec's other form, and the WebSocket one), then
 * `Authorization: Bearer <key>` (the spec's troubleshooting examples). A key given in two sources is the first one's, not a 400: a gateway or HTTP
 * library may add an `Authorization: Bearer` of its own to a request that carries its key in `apikey`, and such
 * requests must work. Any other Authorization scheme (Basic, Digest...) is not ours and is ignored.
 */
export const apiKeyOf = (
  request: Request,
  query: Readonly<Record<string, string>>,
  inPath: string | undefined,
): string | undefined =>
  given(request.headers.get("apikey")) ??
    given(request.headers.get("project_id")) ??
    given(inPath) ??
    given(query.apikey) ??
    given(query.apiKey) ??
    given(request.headers.get("authorization")?.match(/^Bearer\s+(\S+)\s*$/i)?.[1]);

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
