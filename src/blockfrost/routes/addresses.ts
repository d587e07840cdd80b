/** The Blockfrost dialect's addresses routes (schemas/blockfrost/addresses.ts). */
import type { Route } from "@src/http/route.ts";

export const addressesRoutes: ReadonlyArray<Route> = [];
