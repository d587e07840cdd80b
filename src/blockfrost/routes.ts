/**
 * The Blockfrost-compatible routes: each group's routes (./routes/), its OpenAPI document, and the dialect's
 * answers to the front door's own failures on its paths. A newcomer finds a Blockfrost route in its group's file;
 * `serveBlockfrost` (endpoint.ts) leads from there to the program, and the program to its query.
 */
import { Effect } from "effect";
import { blockfrostBases } from "@schemas/blockfrost/api.ts";
import { json } from "@src/http/json.ts";
import type { DialectEdge, Route } from "@src/http/route.ts";
import { blockfrostError } from "./failures.ts";
import { blockfrostOpenApiDocument, blockfrostOpenApiPath } from "./openapi.ts";
import { accountsRoutes } from "./routes/accounts.ts";
import { addressesRoutes } from "./routes/addresses.ts";
import { chainRoutes } from "./routes/chain.ts";
import { poolsRoutes } from "./routes/pools.ts";
import { scriptsRoutes } from "./routes/scripts.ts";
import { transactionsRoutes } from "./routes/transactions.ts";
import { utilsRoutes } from "./routes/utils.ts";

export const blockfrostRoutes: ReadonlyArray<Route> = [
  ...chainRoutes,
  ...addressesRoutes,
  ...transactionsRoutes,
  ...accountsRoutes,
  ...scriptsRoutes,
  ...poolsRoutes,
  ...utilsRoutes,
  {
    method: "GET",
    path: blockfrostOpenApiPath,
    access: "public",
    run: () =>
      Effect.succeed(json(blockfrostOpenApiDocument, 200, { "cache-control": "public, max-age=3600" })),
  },
];

/** Unknown paths and methods under the dialect's base URLs answer in its envelope. */
export const blockfrostEdge: DialectEdge = {
  prefixes: Object.values(blockfrostBases),
  notFound: (method, path) => blockfrostError(404, `No route for ${method} ${path}`),
  methodNotAllowed: (method, path, allow) =>
    blockfrostError(405, `${method} is not allowed on ${path}`, { allow: allow.join(", ") }),
  internal: (requestId) => blockfrostError(500, `Internal error (request id ${requestId})`),
};
