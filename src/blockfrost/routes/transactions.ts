/** The Blockfrost dialect's transactions routes (schemas/blockfrost/transactions.ts). */
import type { Route } from "@src/http/route.ts";

export const transactionsRoutes: ReadonlyArray<Route> = [];
