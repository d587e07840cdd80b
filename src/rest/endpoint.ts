/**
 * Serving an endpoint declared in schemas/api.ts: its path and query parameters are decoded once with the
 * endpoint's own Schemas (a failure is a 400 naming the parameter), the network the request concerns is read from
 * those decoded values for the router's access check, its program runs on the same values, and its answer is
 * encoded with the endpoint's success Schema. The same declarations produce /openapi.json, so the document cannot drift.
 */
import type { HttpApiEndpoint } from "@effect/platform";
import { Context, type Effect, Either } from "effect";
import { ChainTips } from "@layers/chain_tips.ts";
import { stringify } from "@src/domain/json.ts";
import type { InvalidParameter } from "@src/domain/errors.ts";
import {
  type Decoded,
  endpointCodec,
  type PathOf,
  type QueryOf,
  type SuccessOf,
} from "@src/http/endpoint_codec.ts";
import type { AppServices, Route, RouteContext } from "@src/http/route.ts";
import { answerEncoded, type EncodedJson } from "@src/http/conditional_json.ts";
import type { TipAnswers } from "@src/http/tip_answers.ts";
import type { PointRow } from "@src/queries/chain_blocks.ts";
import { chainDown } from "@src/programs/chain_down.ts";
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

/**
 * An endpoint whose answer follows from the chain as of the reported tip: its answers are kept encoded there
 * (tip_answers.ts). `at` says whether a value was computed at `tip` itself: one read from a database behind
 * or ahead of the tip the service reports (a replica, an instance catching up with the cluster's shared tip, a
 * block the poll has not read yet) is answered but not kept, so a kept answer is always the reported tip's.
 */
export interface PerTip<A, P = unknown, Q = unknown> {
  readonly answers: TipAnswers;
  readonly at: (value: A, tip: PointRow, decoded: Decoded<P, Q>) => boolean;
}

/**
 * The answer kept for these decoded parameters at the network's reported tip, and how to keep a new one. None is
 * served while the chain database is down as `/health` says it (a failed or stale tip poll): the program then
 * runs and answers as it can (503 when the database does not answer). A value is kept only if the tip has not
 * moved while it was computed and it was computed at that tip.
 */
const keptAnswer = <A, P, Q>(
  perTip: PerTip<A, P, Q>,
  network: Network,
  decoded: Decoded<P, Q>,
  ctx: RouteContext,
) => {
  if (chainDown(ctx.services, network) !== undefined) return undefined;
  const tips = Context.get(ctx.services, ChainTips).get(network);
  const tip = tips.current();
  if (tip === undefined) return undefined;
  const key = stringify(decoded);
  return {
    answer: perTip.answers.get(network, tip.hash, key, Date.now()),
    keep: (answer: EncodedJson, value: A) => {
      if (
        tips.current()?.hash === tip.hash && perTip.at(value, tip, decoded) &&
        chainDown(ctx.services, network) === undefined
      ) {
        perTip.answers.set(network, tip.hash, key, answer, Date.now());
      }
    },
  };
};

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
        run: (ctx) => {
          const kept = perTip && network.right && keptAnswer(perTip, network.right, decoded.right, ctx);
          if (kept && kept.answer) return answerEncoded(ctx.request, kept.answer);
          const input = { ...decoded.right, network: network.right, ctx };
          return codec.answer(
            ctx.request,
            program(input),
            (value) => headers(value, input),
            toResponse,
            kept ? kept.keep : undefined,
          );
        },
      });
    },
  };
};
