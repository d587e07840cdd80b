/**
 * The Blockfrost dialect's pools routes (schemas/blockfrost/pools.ts): a pool (src/programs/pool_content.ts), the
 * DReps and a DRep (src/programs/explorer_dreps.ts, drep.ts), encoded by ../encode_pools.ts.
 */
import { Effect } from "effect";
import * as pools from "@schemas/blockfrost/pools.ts";
import type { Route } from "@src/http/route.ts";
import { drep } from "@src/programs/drep.ts";
import { dreps } from "@src/programs/explorer_dreps.ts";
import { poolContent } from "@src/programs/pool_content.ts";
import { encodeDRep, encodeDRepItem, encodePool } from "../encode_pools.ts";
import { serveBlockfrost } from "../endpoint.ts";

export const poolsRoutes: ReadonlyArray<Route> = [
  ...serveBlockfrost(
    pools.pool,
    ({ path, network }) => Effect.map(poolContent(path.pool_id, network), encodePool),
  ),
  ...serveBlockfrost(
    pools.dreps,
    ({ query, network }) =>
      Effect.map(
        dreps(network, {
          page: query.page,
          pageSize: query.count,
          order: query.order,
          activeOnly: false,
          registeredOnly: true,
        }),
        (page) => page.data.map(encodeDRepItem),
      ),
  ),
  ...serveBlockfrost(pools.drep, ({ path, network }) => Effect.map(drep(network, path.drep_id), encodeDRep)),
];
