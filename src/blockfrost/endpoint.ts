/**
 * Serving a Blockfrost-dialect endpoint declared in schemas/blockfrost/: once per network, at that network's base
 * URL (`/api/v0`, `/api/preprod/v0`) and under `/key/{key}` as well; path and query decoded once with the
 * endpoint's own Schemas (a 400 in Blockfrost's envelope naming the parameter), the program run on those values
 * for the network the base names, the answer encoded with the endpoint's success Schema. Refusals, a repeated
 * parameter and failures all answer in Blockfrost's envelope (failures.ts).
 */
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint";
import { type Effect, Either } from "effect";
import type { Spend } from "@layers/rate_limiter.ts";
import { blockfrostBases } from "@schemas/blockfrost/api.ts";
import type { Network } from "@schemas/network.ts";
import { endpointCodec, type PathOf, type QueryOf, type SuccessOf } from "@src/http/endpoint_codec.ts";
import type { AppServices, Route, RouteContext } from "@src/http/route.ts";
import { keptOrAnswered, type PerTip } from "@src/http/kept_answer.ts";
import {
  blockfrostError,
  type BlockfrostFailure,
  blockfrostRefusal,
  toBlockfrostResponse,
} from "./failures.ts";

export interface BlockfrostInput<P, Q> {
  readonly path: P;
  readonly query: Q;
  /** The network whose base URL the request came in on. */
  readonly network: Network;
  readonly ctx: RouteContext;
}

export interface BlockfrostOptions<A, P, Q> {
  /** What a request spends (a submission spends the key's submission budget too): `request` by default. */
  readonly spend?: Spend;
  /** The answer's cache headers (and others), from its value. */
  readonly headers?: (value: A, input: BlockfrostInput<P, Q>) => Record<string, string>;
  /** Answers kept encoded at the reported tip (src/http/kept_answer.ts), for answers that follow from it. */
  readonly perTip?: PerTip<A, { readonly path: P; readonly query: Q }>;
}

/** Each network's absolute path of a path relative to its base (the root `/` is the base itself, either way). */
export const blockfrostPaths = (network: Network, path: string): ReadonlyArray<string> =>
  path === "/"
    ? [blockfrostBases[network], `${blockfrostBases[network]}/`]
    : [`${blockfrostBases[network]}${path}`];

/** What every Blockfrost route shares: its access family, key in the path, refusals in the dialect's envelope. */
export const blockfrostRoute = (
  network: Network,
  spend: Spend,
): Pick<Route, "access" | "keyInPath" | "refuse" | "malformed"> => ({
  access: { family: "blockfrost", spend, network },
  keyInPath: true,
  refuse: blockfrostRefusal,
  malformed: (message) => blockfrostError(400, message),
});

export const serveBlockfrost = <X extends HttpApiEndpoint.HttpApiEndpoint.Any>(
  endpoint: X,
  program: (
    input: BlockfrostInput<PathOf<X>, QueryOf<X>>,
  ) => Effect.Effect<SuccessOf<X>, BlockfrostFailure, AppServices>,
  options: BlockfrostOptions<SuccessOf<X>, PathOf<X>, QueryOf<X>> = {},
): ReadonlyArray<Route> => {
  const codec = endpointCodec(endpoint);
  const headers = options.headers ?? (() => ({}));
  const networks: ReadonlyArray<Network> = ["mainnet", "preprod"];
  return networks.flatMap((network) =>
    blockfrostPaths(network, codec.path).map((path): Route => ({
      method: codec.method,
      path,
      ...blockfrostRoute(network, options.spend ?? "request"),
      prepare: (request) => {
        const decoded = codec.decode(request);
        if (Either.isLeft(decoded)) return Either.left(toBlockfrostResponse(decoded.left));
        return Either.right({
          network,
          run: (ctx) =>
            keptOrAnswered(options.perTip, network, decoded.right, ctx, (keep) => {
              const input = { ...decoded.right, network, ctx };
              const withHeaders = (value: SuccessOf<X>) => headers(value, input);
              return codec.answer(ctx.request, program(input), withHeaders, toBlockfrostResponse, keep);
            }),
        });
      },
    }))
  );
};
