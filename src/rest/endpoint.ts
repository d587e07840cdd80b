/**
 * Serving an endpoint declared in schemas/api.ts: its path and query parameters are decoded once with the
 * endpoint's own Schemas (a failure is a 400 naming the parameter), the network the request concerns is read from
 * those decoded values for the router's access check, its program runs on the same values, and its answer is
 * encoded with the endpoint's success Schema. The same declarations produce /openapi.json, so the document cannot drift.
 */
import type { HttpApiEndpoint } from "@effect/platform";
import { Effect, Either, Option, Schema } from "effect";
import type { InvalidParameter } from "@src/domain/errors.ts";
import { conditionalJson } from "@src/http/conditional_json.ts";
import { decodeParameters } from "@src/http/decode_parameters.ts";
import type { AppServices, Route, RouteContext } from "@src/http/route.ts";
import type { Family } from "@layers/usage.ts";
import type { Spend } from "@layers/rate_limiter.ts";
import type { Network } from "@schemas/network.ts";
import { type RestFailure, toResponse } from "./failures.ts";

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
      const path = decodeParameters(pathSchema, request.params, "path");
      if (Either.isLeft(path)) return Either.left(toResponse(path.left));
      const query = decodeParameters(querySchema, request.query, "query");
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
