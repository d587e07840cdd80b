/**
 * Serving an endpoint declared in schemas/api.ts: its path and query parameters are decoded once with the
 * endpoint's own Schemas (a failure is a 400 naming the parameter), the network the request concerns is read from
 * those decoded values for the router's access check, its program runs on the same values, and its answer is
 * encoded with the endpoint's success Schema. The same declarations produce /openapi.json, so the document cannot drift.
 */
import type { HttpApiEndpoint } from "@effect/platform";
import { Effect, Either, Option, ParseResult, Schema } from "effect";
import { InvalidParameter } from "@src/domain/errors.ts";
import { stringify } from "@src/domain/json.ts";
import { jsonText } from "@src/http/json.ts";
import type { AppServices, Route, RouteContext } from "@src/http/route.ts";
import type { Family } from "@layers/usage.ts";
import type { Spend } from "@layers/rate_limiter.ts";
import type { Network } from "@schemas/network.ts";
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

/** An endpoint's parameters, decoded once: what the access check judged is what the program gets. */
export interface Decoded<P, Q> {
  readonly path: P;
  readonly query: Q;
}

export interface EndpointInput<P, Q> extends Decoded<P, Q> {
  /** The network the access check allowed (undefined for endpoints that concern none, as the price). */
  readonly network: Network | undefined;
  readonly ctx: RouteContext;
}

type E = HttpApiEndpoint.HttpApiEndpoint.Any;
type PathOf<X extends E> = HttpApiEndpoint.HttpApiEndpoint.PathParsed<X>;
type QueryOf<X extends E> = HttpApiEndpoint.HttpApiEndpoint.UrlParams<X>;
type SuccessOf<X extends E> = HttpApiEndpoint.HttpApiEndpoint.Success<X>;

/**
 * Who may call an endpoint: its usage family, what it spends, and the network a request concerns, read from the
 * decoded parameters (an `InvalidParameter` when they contradict each other: a 400).
 */
export interface EndpointAccess<P, Q> {
  readonly family: Family;
  readonly spend: Spend;
  readonly network?: (decoded: Decoded<P, Q>) => Either.Either<Network, InvalidParameter>;
}

export const serve = <X extends E>(
  endpoint: X,
  access: EndpointAccess<PathOf<X>, QueryOf<X>>,
  program: (
    input: EndpointInput<PathOf<X>, QueryOf<X>>,
  ) => Effect.Effect<SuccessOf<X>, RestFailure, AppServices>,
  headers: (value: SuccessOf<X>, input: EndpointInput<PathOf<X>, QueryOf<X>>) => Record<string, string> =
    () => ({}),
): Route => {
  const e = endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint<
    string,
    "GET",
    PathOf<X>,
    QueryOf<X>,
    never,
    never,
    SuccessOf<X>
  >;
  const encode = Schema.encodeSync(e.successSchema as unknown as Schema.Schema<SuccessOf<X>, unknown>);
  const pathSchema = e.pathSchema as Option.Option<Schema.Schema<PathOf<X>, unknown>>;
  const querySchema = e.urlParamsSchema as Option.Option<Schema.Schema<QueryOf<X>, unknown>>;
  return {
    method: e.method,
    path: e.path,
    access: { family: access.family, spend: access.spend },
    prepare: (request) => {
      const path = decode(pathSchema, request.params, "path");
      if (Either.isLeft(path)) return Either.left(toResponse(path.left));
      const query = decode(querySchema, request.query, "query");
      if (Either.isLeft(query)) return Either.left(toResponse(query.left));
      const decoded = { path: path.right, query: query.right };
      const network = access.network ? access.network(decoded) : Either.right(undefined);
      if (Either.isLeft(network)) return Either.left(toResponse(network.left));
      return Either.right({
        network: network.right,
        run: (ctx) => {
          const input = { ...decoded, network: network.right, ctx };
          return program(input).pipe(
            Effect.map((value) => conditionalJson(ctx.request, encode(value), headers(value, input))),
            Effect.catchAll((failure) => Effect.succeed(toResponse(failure))),
          );
        },
      });
    },
  };
};
