/** The Blockfrost dialect's chain routes (schemas/blockfrost/chain.ts): root, health, network, epochs, blocks. */
import { Effect, Option } from "effect";
import * as chain from "@schemas/blockfrost/chain.ts";
import type { Route } from "@src/http/route.ts";
import { health } from "@src/programs/health.ts";
import { serveBlockfrost } from "../endpoint.ts";

const noStore = () => ({ "cache-control": "no-store" });

export const chainRoutes: ReadonlyArray<Route> = [
  ...serveBlockfrost(
    chain.root,
    ({ ctx }) =>
      Effect.succeed({
        url: Option.getOrElse(ctx.config.publicUrl, () => ctx.url.origin),
        version: "0.1.0",
      }),
    { headers: () => ({ "cache-control": "public, max-age=3600" }) },
  ),
  ...serveBlockfrost(
    chain.health,
    ({ network }) => Effect.map(health(), (h) => ({ is_healthy: h.networks[network].status === "ok" })),
    { headers: noStore },
  ),
  ...serveBlockfrost(chain.healthClock, () => Effect.sync(() => ({ server_time: Date.now() })), {
    headers: noStore,
  }),
];
