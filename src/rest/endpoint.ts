/**
 * Serving an endpoint declared in schemas/api.ts: its path and query parameters are decoded with the endpoint's
 * own Schemas (a failure is a 400 naming the parameter), its program runs, and its answer is encoded with the
 * endpoint's success Schema. The same declarations produce /openapi.json, so the document cannot drift.
 */
import type { HttpApiEndpoint } from "@effect/platform";
import { Effect, Either, Option, ParseResult, Schema } from "effect";
import { InvalidParameter } from "@src/domain/errors.ts";
import { stringify } from "@src/domain/json.ts";
import { jsonText } from "@src/http/json.ts";
import type { AppServices, Route, RouteContext } from "@src/http/route.ts";
import { type RestFailure, toResponse } from "./failures.ts";

/** The first decoding issue as `parameter: why`. */
const firstIssue = (error: ParseResult.ParseError, fallback: string): InvalidParameter => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error);
  const parameter = issue?.path.map(String).join(".") || fallback;
  const reason = issue?.message.replace(/^Expected /, "expected ") ?? "is malformed";
  return new InvalidParameter({ parameter, reason });
};

const decode = <A>(schema: Option.Option<Schema.Schema<A, unknown>>, input: unknown, fallback: string) =>
  Option.match(schema, {
    onNone: () => Either.right(undefined as A),
    onSome: (s) =>
      Either.mapLeft(
        Schema.decodeUnknownEither(s, { errors: "first" })(input),
        (e) => firstIssue(e, fallback),
      ),
  });

/** cyrb53: a fast 53-bit string hash, enough to tell representations apart for caching. */
const hash53 = (text: string): string => {
  let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
};

/**
 * A JSON answer with a weak ETag of its body, or 304 Not Modified (same caching headers, no body) when the client
 * already holds that representation (`If-None-Match`).
 */
const conditionalJson = (request: Request, body: unknown, headers: Record<string, string>): Response => {
  const text = stringify(body);
  const etag = `W/"${hash53(text)}"`;
  const asked = request.headers.get("if-none-match");
  if (asked && asked.split(",").some((t) => t.trim() === etag || t.trim() === "*")) {
    return new Response(null, { status: 304, headers: { ...headers, etag } });
  }
  return jsonText(text, 200, { ...headers, etag });
};

export interface EndpointInput<P, Q> {
  readonly path: P;
  readonly query: Q;
  readonly ctx: RouteContext;
}

type E = HttpApiEndpoint.HttpApiEndpoint.Any;
type PathOf<X extends E> = HttpApiEndpoint.HttpApiEndpoint.PathParsed<X>;
type QueryOf<X extends E> = HttpApiEndpoint.HttpApiEndpoint.UrlParams<X>;
type SuccessOf<X extends E> = HttpApiEndpoint.HttpApiEndpoint.Success<X>;

export const serve = <X extends E>(
  endpoint: X,
  access: Route["access"],
  program: (
    input: EndpointInput<PathOf<X>, QueryOf<X>>,
  ) => Effect.Effect<SuccessOf<X>, RestFailure, AppServices>,
  headers: (value: SuccessOf<X>, input: EndpointInput<PathOf<X>, QueryOf<X>>) => Record<string, string> =
    () => ({}),
): Route => ({
  method: (endpoint as unknown as { method: "GET" | "POST" }).method,
  path: (endpoint as unknown as { path: string }).path,
  access,
  run: (ctx) => {
    const e = endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint<
      string,
      "GET",
      PathOf<X>,
      QueryOf<X>,
      never,
      never,
      SuccessOf<X>
    >;
    const path = decode(e.pathSchema as Option.Option<Schema.Schema<PathOf<X>, unknown>>, ctx.params, "path");
    if (Either.isLeft(path)) return toResponse(path.left);
    const query = decode(
      e.urlParamsSchema as Option.Option<Schema.Schema<QueryOf<X>, unknown>>,
      Object.fromEntries(ctx.url.searchParams),
      "query",
    );
    if (Either.isLeft(query)) return toResponse(query.left);
    const encode = Schema.encodeSync(e.successSchema as unknown as Schema.Schema<SuccessOf<X>, unknown>);
    const input = { path: path.right, query: query.right, ctx };
    return program(input).pipe(
      Effect.map((value) => conditionalJson(ctx.request, encode(value), headers(value, input))),
      Effect.catchAll((failure) => Effect.succeed(toResponse(failure))),
    );
  },
});
