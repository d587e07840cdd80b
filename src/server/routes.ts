/**
 * Every URL the service answers (spec: Endpoints): the service's own routes (the landing page, health,
 * readiness, the key's info, the OpenAPI document and its docs, metrics), then each protocol adapter's route
 * list, which binds its endpoints to their programs: REST and explorer (src/rest/routes.ts), GraphQL
 * (src/graphql/routes.ts), JSON-RPC (src/jsonrpc/routes.ts), the Blockfrost-compatible API (src/blockfrost/routes.ts)
 * and the key dashboard (src/dashboard/mount.ts).
 */
import { Effect } from "effect";
import { Metrics } from "@layers/metrics.ts";
import * as api from "@schemas/api.ts";
import { NotFoundError } from "@src/domain/errors.ts";
import { compressOnce } from "@src/http/compression.ts";
import type { EdgeAnswers } from "@src/http/edge_answers.ts";
import { htmlPage } from "@src/http/html_page.ts";
import { json } from "@src/http/json.ts";
import type { DialectEdge, Route } from "@src/http/route.ts";
import { healthOf } from "@src/programs/health.ts";
import { keyInfo, keyInfoNow } from "@src/programs/key_info.ts";
import { readiness } from "@src/programs/readiness.ts";
import { ChainDatabaseUnreachable, NotReady, UpgradeExpected } from "@src/rest/edge_failures.ts";
import { toResponse } from "@src/rest/failures.ts";
import { docsAsset, docsPage, openApiDocument } from "@src/rest/openapi.ts";
import { restRoutes } from "@src/rest/routes.ts";
import { graphiqlAssetRoute, graphqlRoutes } from "@src/graphql/routes.ts";
import { jsonRpcRoutes } from "@src/jsonrpc/routes.ts";
import { dashboardRoutes } from "@src/dashboard/mount.ts";
import { blockfrostEdge, blockfrostRoutes } from "@src/blockfrost/routes.ts";
import { landingHtml } from "./landing_page.ts";
import { metricsOnMainPort, metricsPath } from "./metrics_http.ts";

const noStore = { "cache-control": "no-store" };
/** The service's own answers outside an adapter's dialect: its error envelope (REST's). */
const edge: EdgeAnswers = {
  notFound: (message) => toResponse(new NotFoundError({ message })),
  upgradeExpected: (path) => toResponse(new UpgradeExpected({ path })),
  chainDatabaseUnreachable: (network, message) =>
    toResponse(new ChainDatabaseUnreachable({ network, message })),
};

export const routes: ReadonlyArray<Route> = [
  {
    method: "GET",
    path: "/",
    access: "public",
    run: () => htmlPage(landingHtml, { "cache-control": "public, max-age=300" }),
  },
  {
    method: "GET",
    path: api.ready.path,
    access: "public",
    run: () =>
      Effect.map(
        readiness,
        (r) =>
          r.ready
            ? json(r.members ? { status: "ready", members: r.members } : { status: "ready" }, 200, noStore)
            : toResponse(new NotReady({ reason: r.reason, stopping: false })),
      ),
  },
  {
    method: "GET",
    path: api.health.path,
    access: "public",
    run: (ctx) => json(healthOf(ctx.services), 200, noStore),
  },
  {
    method: "GET",
    path: api.keyInfo.path,
    access: { family: "account", spend: "request" },
    run: (ctx) => {
      const now = keyInfoNow(ctx.grant!, ctx.config.limits, ctx.access, Date.now());
      // built in its encoded form (key_info.ts): no Schema pass
      return now
        ? json(now, 200, noStore)
        : Effect.map(keyInfo(ctx.grant!, ctx.config.limits), (k) => json(k, 200, noStore));
    },
  },
  { method: "GET", path: api.openApi.path, access: "public", run: () => json(openApiDocument, 200) },
  {
    method: "GET",
    path: metricsPath,
    access: "public", // behind METRICS_TOKEN of its own, or a 404 (metrics_http.ts)
    run: (ctx) =>
      Effect.map(Metrics, (metrics) => metricsOnMainPort(ctx.request, ctx.config.metricsToken, metrics)),
  },
  {
    method: "GET",
    path: "/docs",
    access: "public",
    run: () => htmlPage(docsPage),
  },
  {
    method: "GET",
    path: "/docs/:asset",
    access: "public",
    run: (ctx) =>
      Effect.promise(async () =>
        await docsAsset(ctx.params.asset!).then((r) => r && compressOnce(r, `/docs/${ctx.params.asset}`)) ??
          toResponse(new NotFoundError({ message: `No docs asset ${ctx.params.asset}` }))
      ),
  },
  ...restRoutes,
  ...graphqlRoutes("mainnet", api.graphql.path),
  ...graphqlRoutes("preprod", api.graphqlPreprod.path),
  graphiqlAssetRoute(edge),
  ...jsonRpcRoutes("mainnet", api.ogmios.path, edge),
  ...jsonRpcRoutes("preprod", api.ogmiosPreprod.path, edge),
  ...blockfrostRoutes,
  ...dashboardRoutes,
];

/** Dialects that answer the front door's own failures on their paths (the rest get the REST envelope). */
export const dialectEdges: ReadonlyArray<DialectEdge> = [blockfrostEdge];
