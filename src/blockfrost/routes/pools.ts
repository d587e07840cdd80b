/** The Blockfrost dialect's pools routes (schemas/blockfrost/pools.ts). */
import type { Route } from "@src/http/route.ts";

export const poolsRoutes: ReadonlyArray<Route> = [];
