/** The Blockfrost dialect's accounts routes (schemas/blockfrost/accounts.ts). */
import type { Route } from "@src/http/route.ts";

export const accountsRoutes: ReadonlyArray<Route> = [];
