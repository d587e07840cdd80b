/**
 * The Ogmios-compatible JSON-RPC routes of one network: HTTP (`POST`), WebSocket (`GET` with an upgrade) and its
 * health probe. A refusal before the route runs answers in the service's envelope (the router's default); a
 * submission refused afterwards answers in JSON-RPC's (refusal.ts).
 */
import { Effect } from "effect";
import type { Network } from "@schemas/network.ts";
import { json } from "@src/http/json.ts";
import type { EdgeAnswers } from "@src/http/edge_answers.ts";
import type { Route } from "@src/http/route.ts";
import { ogmiosHealth } from "@src/programs/ogmios_health.ts";
import { ogmiosBadRequest, ogmiosHttp } from "./http_transport.ts";
import { ogmiosWebSocket } from "./ws_transport.ts";

export const jsonRpcRoutes = (network: Network, base: string, edge: EdgeAnswers): Array<Route> => [
  {
    method: "POST",
    path: base,
    access: { family: "ogmios", spend: "request", network },
    malformed: ogmiosBadRequest,
    run: (ctx) => ogmiosHttp(ctx.request, network, ctx.access, ctx.grant!, ctx.config.maxBodyBytes),
  },
  {
    method: "GET",
    path: base,
    access: { family: "ogmios", spend: "request", network },
    run: (ctx) =>
      ctx.request.headers.get("upgrade")?.toLowerCase() === "websocket"
        ? ogmiosWebSocket({
          ...ctx,
          network,
          secret: ctx.secret!,
          grant: ctx.grant!,
          maxMessageBytes: ctx.config.maxBodyBytes,
        })
        : edge.upgradeExpected(base),
  },
  {
    method: "GET",
    path: `${base}/health`,
    access: "public",
    run: () =>
      ogmiosHealth(network).pipe(
        Effect.map((h) => json(h, 200, { "cache-control": "no-store" })),
        Effect.catchAll((e) => Effect.succeed(edge.chainDatabaseUnreachable(network, e.message))),
      ),
  },
];
