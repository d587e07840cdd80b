/**
 * Serving an endpoint declared in schemas/api.ts: its path and query parameters are decoded once with the
 * endpoint's own Schemas (a failure is a 400 naming the parameter), the network the request concerns is read from
 * those decoded values for the router's access check, its program runs on the same values, and its answer is
 * encoded with the endpoint's success Schema. The same declarations produce /openapi.json, so the document cannot drift.
 */
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint";
import { type Effect, Either } from "effect";
import type { InvalidParameter } from "@src/domain/errors.ts";
import {
  type Decoded,
  endpointCodec,
  type PathOf,
  type QueryOf,
  type SuccessOf,
} from "@src/http/endpoint_codec.ts";
import type { AppServices, Route, RouteContext } from "@src/http/route.ts";
import { keptOrAnswered, type PerTip as KeptPerTip } from "@src/http/kept_answer.ts";
import type { Family } from "@layers/usage.ts";
import type { Spend } from "@layers/rate_limiter.ts";
import type { Network } from "@schemas/network.ts";
import { type RestFailure, toResponse } from "./failures.ts";

export type { Decoded };

export interface EndpointInput<P, Q> extends Decoded<P, Q> {
  /** The network the access check allowed (undefined for endpoints that concern none, as the price). */
  readonly network: Network | undefined;
  readonly ctx: RouteContext;
}

/**
 * Who may call an endpoint: its usage family, what it spends, and the network a request concerns, read from the
 * decoded parameters (an `InvalidParameter` when they contradict each other: a 400).
 */
export interface EndpointAccess<P, Q> {
  readonly family: Family;
  readonly spend: Spend;
  readonly network?: (decoded: Decoded<P, Q>) => Either.Either<Network, InvalidParameter>;
}

/** An endpoint whose answer follows from the chain as of the reported tip: its answers are kept encoded there. */
export type PerTip<A, P = unknown, Q = unknown> = KeptPerTip<A, Decoded<P, Q>>;

export const serve = <X extends HttpApiEndpoint.HttpApiEndpoint.Any>(
  endpoint: X,
  access: EndpointAccess<PathOf<X>, QueryOf<X>>,
  program: (
    input: EndpointInput<PathOf<X>, QueryOf<X>>,
  ) => Effect.Effect<SuccessOf<X>, RestFailure, AppServices>,
  headers: (value: SuccessOf<X>, input: EndpointInput<PathOf<X>, QueryOf<X>>) => Record<string, string> =
    () => ({}),
  perTip?: PerTip<SuccessOf<X>, PathOf<X>, QueryOf<X>>,
): Route => {
  const codec = endpointCodec(endpoint);
  return {
    method: codec.method,
    path: codec.path,
    access: { family: access.family, spend: access.spend },
    prepare: (request) => {
      const decoded = codec.decode(request);
      if (Either.isLeft(decoded)) return Either.left(toResponse(decoded.left));
      const network = access.network ? access.network(decoded.right) : Either.right(undefined);
      if (Either.isLeft(network)) return Either.left(toResponse(network.left));
      return Either.right({
        network: network.right,
        run: (ctx) =>
          keptOrAnswered(perTip, network.right, decoded.right, ctx, (keep) => {
            const input = { ...decoded.right, network: network.right, ctx };
            const withHeaders = (value: SuccessOf<X>) => headers(value, input);
            return codec.answer(ctx.request, program(input), withHeaders, toResponse, keep);
          }),
      });
    },
  };
};
