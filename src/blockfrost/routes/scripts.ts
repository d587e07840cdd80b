/** The Blockfrost dialect's scripts routes (schemas/blockfrost/scripts.ts). */
import type { Route } from "@src/http/route.ts";

export const scriptsRoutes: ReadonlyArray<Route> = [];
