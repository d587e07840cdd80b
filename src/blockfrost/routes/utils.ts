/** The Blockfrost dialect's utils routes (schemas/blockfrost/utils.ts). */
import type { Route } from "@src/http/route.ts";

export const utilsRoutes: ReadonlyArray<Route> = [];
