/**
 * The GraphQL routes: per network the endpoint (`POST`, refusals in GraphQL's errors array), GraphiQL (`GET`)
 * and the schema as SDL; and GraphiQL's static assets, shared by both networks.
 */
import { Effect } from "effect";
import type { Network } from "@schemas/network.ts";
import { compressOnce } from "@src/http/compression.ts";
import type { EdgeAnswers } from "@src/http/edge_answers.ts";
import { htmlPage } from "@src/http/html_page.ts";
import { readBody, tooLargeMessage } from "@src/http/request_body.ts";
import type { Route } from "@src/http/route.ts";
import { graphiqlAsset, graphiqlHtml } from "./graphiql.ts";
import { graphqlBadRequest, graphqlBodyTooLarge, graphqlHttp, graphqlRefusal } from "./http.ts";
import { graphqlSdl } from "./sdl.ts";

export const graphqlRoutes = (network: Network, path: string): Array<Route> => [
  {
    method: "POST",
    path,
    access: { family: "graphql", spend: "graphql", network },
    malformed: graphqlBadRequest,
    run: (ctx) =>
      Effect.flatMap(
        readBody(ctx.request, ctx.config.maxBodyBytes),
        (body) =>
          body._tag === "TooLarge"
            ? Effect.succeed(graphqlBodyTooLarge(tooLargeMessage(body.limit)))
            : graphqlHttp(body.text, network, ctx.grant!.key.tier),
      ),
    refuse: graphqlRefusal,
  },
  {
    method: "GET",
    path,
    access: "public",
    run: () => htmlPage(graphiqlHtml(path), { "cache-control": "public, max-age=3600" }),
  },
  {
    method: "GET",
    path: `${path}/schema.graphql`,
    access: "public",
    run: () =>
      Effect.map(graphqlSdl(network), (sdl) =>
        new Response(sdl, {
          headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "public, max-age=3600" },
        })),
  },
];

/** GraphiQL's scripts and styles, served from here (the pages' policy allows this origin only). */
export const graphiqlAssetRoute = (edge: EdgeAnswers): Route => ({
  method: "GET",
  path: "/v1/graphiql/:asset",
  access: "public",
  run: (ctx) =>
    Effect.promise(async () =>
      await graphiqlAsset(ctx.params.asset!).then((r) =>
        r && compressOnce(r, `/v1/graphiql/${ctx.params.asset}`)
      ) ??
        edge.notFound(`No GraphiQL asset ${ctx.params.asset}`)
    ),
});
