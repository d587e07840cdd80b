/**
 * Every URL the service answers, with who may call it and what it costs (spec: Endpoints). A newcomer finds an
 * endpoint here first; `run` leads to its program.
 */
import { Effect, Option, Schema } from "effect";
import { PriceFeed } from "@layers/price_feed.ts";
import { poolStatus } from "@src/programs/pool_status.ts";
import * as explorer from "@src/programs/explorer.ts";
import * as explorerAddress from "@src/programs/explorer_address.ts";
import * as explorerDReps from "@src/programs/explorer_dreps.ts";
import * as explorerPool from "@src/programs/explorer_pool.ts";
import * as explorerTransaction from "@src/programs/explorer_transaction.ts";
import { poolInfo } from "@src/programs/pool_info.ts";
import { stakeAccount } from "@src/programs/stake_account.ts";
import type { Network } from "@schemas/network.ts";
import { health } from "@src/programs/health.ts";
import { readiness } from "@src/programs/readiness.ts";
import { keyInfo } from "@src/programs/key_info.ts";
import { ogmiosHealth } from "@src/programs/ogmios_health.ts";
import * as api from "@schemas/api.ts";
import { Health, KeyInfo } from "@schemas/service.ts";
import { protocolParametersFromNode } from "@src/programs/protocol_parameters.ts";
import { txStatus } from "@src/programs/tx_status.ts";
import { json } from "@src/http/json.ts";
import type { Route } from "@src/http/route.ts";
import { serve } from "@src/rest/endpoint.ts";
import { ChainDatabaseUnreachable, NotReady, UpgradeExpected } from "@src/rest/edge_failures.ts";
import { toResponse } from "@src/rest/failures.ts";
import { NotFoundError } from "@src/domain/errors.ts";
import { docsAsset, docsPage, openApiDocument } from "@src/rest/openapi.ts";
import { Metrics } from "@layers/metrics.ts";
import { graphqlBodyTooLarge, graphqlHttp } from "@src/graphql/http.ts";
import { graphiqlAsset, graphiqlHtml } from "@src/graphql/graphiql.ts";
import { graphqlSdl } from "@src/graphql/sdl.ts";
import { dashboardAccounts } from "@src/dashboard/account_service.ts";
import { makeDashboardRoutes } from "@src/dashboard/routes.ts";
import { compressOnce } from "./compression.ts";
import { htmlPage } from "./html_page.ts";
import { landingHtml } from "./landing_page.ts";
import { ogmiosHttp } from "./ogmios_http.ts";
import { ogmiosWebSocket } from "./ogmios_ws.ts";
import { metricsOnMainPort, metricsPath } from "./metrics_http.ts";
import { readBody, tooLargeMessage } from "@src/http/request_body.ts";

const noStore = { "cache-control": "no-store" };
const encodeHealth = Schema.encodeSync(Health);
const encodeKeyInfo = Schema.encodeSync(KeyInfo);
/** The `network` query parameter, mainnet when absent (an invalid one is the route's 400 to give). */
const queryNetwork = (fallback: (url: URL) => Network) => (url: URL): Network | undefined => {
  const given = url.searchParams.get("network");
  return given === null ? fallback(url) : given === "mainnet" || given === "preprod" ? given : undefined;
};
const mainnet = () => "mainnet" as const;
/** Test-network identifiers (`pool_test1…`, `stake_test1…`) imply preprod, as the programs read them. */
const impliedBy = (parameter: string, testPrefix: string) => (url: URL): Network =>
  url.searchParams.get(parameter)?.startsWith(testPrefix) ? "preprod" : "mainnet";
const rest = (network?: (url: URL) => Network | undefined) =>
  ({ family: "rest", spend: "request", ...(network ? { network } : {}) }) as const;

const ogmiosRoutes = (network: Network, base: string): Array<Route> => [
  {
    method: "POST",
    path: base,
    access: { family: "ogmios", spend: "request", network },
    run: (ctx) => ogmiosHttp(ctx.request, network, ctx.access, ctx.grant!, ctx.config.maxBodyBytes),
  },
  {
    method: "GET",
    path: base,
    access: { family: "ogmios", spend: "request", network },
    run: (ctx) =>
      ctx.request.headers.get("upgrade")?.toLowerCase() === "websocket"
        ? ogmiosWebSocket({
          ...ctx,
          network,
          secret: ctx.secret!,
          grant: ctx.grant!,
          maxMessageBytes: ctx.config.maxBodyBytes,
        })
        : toResponse(new UpgradeExpected({ path: base })),
  },
  {
    method: "GET",
    path: `${base}/health`,
    access: "public",
    run: () =>
      ogmiosHealth(network).pipe(
        Effect.map((h) => json(h, 200, noStore)),
        Effect.catchAll((e) =>
          Effect.succeed(toResponse(new ChainDatabaseUnreachable({ network, message: e.message })))
        ),
      ),
  },
];

const graphqlRoutes = (network: Network, path: string): Array<Route> => [
  {
    method: "POST",
    path,
    access: { family: "graphql", spend: "graphql", network },
    run: (ctx) =>
      Effect.flatMap(
        readBody(ctx.request, ctx.config.maxBodyBytes),
        (body) =>
          body._tag === "TooLarge"
            ? Effect.succeed(graphqlBodyTooLarge(tooLargeMessage(body.limit)))
            : graphqlHttp(body.text, network, ctx.grant!.key.tier),
      ),
  },
  {
    method: "GET",
    path,
    access: "public",
    run: () => htmlPage(graphiqlHtml(path), { "cache-control": "public, max-age=3600" }),
  },
  {
    method: "GET",
    path: `${path}/schema.graphql`,
    access: "public",
    run: () =>
      Effect.map(graphqlSdl(network), (sdl) =>
        new Response(sdl, {
          headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "public, max-age=3600" },
        })),
  },
];

/** The key dashboard's pages (src/dashboard): public here, as they need a session rather than a key. */
const dashboardRoutes: Array<Route> = makeDashboardRoutes(dashboardAccounts).map((r) => ({
  method: r.method,
  path: r.path,
  access: "public",
  run: (ctx) =>
    r.run({
      request: ctx.request,
      url: ctx.url,
      params: ctx.params,
      clientAddress: ctx.clientAddress,
      publicUrl: Option.getOrUndefined(ctx.config.publicUrl),
      cookieSecure: ctx.config.cookieSecure,
    }),
}));

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
            ? json({ status: "ready" }, 200, noStore)
            : toResponse(new NotReady({ reason: r.reason, stopping: false })),
      ),
  },
  {
    method: "GET",
    path: api.health.path,
    access: "public",
    run: () => Effect.map(health(), (h) => json(encodeHealth(h), 200, noStore)),
  },
  {
    method: "GET",
    path: api.keyInfo.path,
    access: { family: "account", spend: "request" },
    run: (ctx) =>
      Effect.map(keyInfo(ctx.grant!, ctx.config.limits), (k) => json(encodeKeyInfo(k), 200, noStore)),
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
  // keyed answers: the router turns `public` into `private` (access_http.ts keyedCaching says why)
  serve(
    api.price,
    rest(),
    () =>
      Effect.flatMap(PriceFeed, (feed) => feed.current).pipe(
        Effect.map((p) => ({ ada_usd: p.adaUsd, updated_at: p.updatedAt.toISOString() })),
      ),
    (p) => ({
      "cache-control": `public, max-age=${
        Math.max(1, 60 - Math.floor((Date.now() - Date.parse(p.updated_at)) / 1000))
      }`,
    }),
  ),
  serve(
    api.poolInfo,
    rest(queryNetwork(impliedBy("poolId", "pool_test"))),
    ({ query }) => poolInfo(query.poolId, query.network),
    () => ({ "cache-control": "public, max-age=60" }),
  ),
  serve(
    api.stakeAccount,
    rest(impliedBy("address", "stake_test")),
    ({ query }) => stakeAccount(query.address),
    () => ({ "cache-control": "public, max-age=20" }),
  ),
  serve(
    api.poolStatus,
    rest(queryNetwork(mainnet)),
    ({ query }) => poolStatus(query.network),
    () => ({ "cache-control": "no-store" }),
  ),
  serve(
    api.protocolParameters,
    rest(queryNetwork(mainnet)),
    ({ query }) => protocolParametersFromNode(query.network),
    () => ({ "cache-control": "public, max-age=3600" }),
  ),
  serve(
    api.txStatus,
    rest(queryNetwork(mainnet)),
    ({ query }) => txStatus(query.txHash, query.network),
    (status) => ({ "cache-control": status.found ? "public, max-age=5" : "public, max-age=2" }),
  ),
  serve(
    api.pool,
    { family: "explorer", spend: "request" },
    ({ path }) => explorerPool.pool(path.network, path.poolId),
    () => ({ "cache-control": "public, max-age=60" }),
  ),
  serve(
    api.address,
    { family: "explorer", spend: "request" },
    ({ path }) => explorerAddress.address(path.network, path.addr),
    () => ({ "cache-control": "public, max-age=5" }),
  ),
  serve(
    api.addressUtxos,
    { family: "explorer", spend: "request" },
    ({ path, query }) => explorerAddress.addressUtxos(path.network, path.addr, query.page, query.limit),
    () => ({ "cache-control": "public, max-age=5" }),
  ),
  serve(
    api.tx,
    { family: "explorer", spend: "request" },
    ({ path }) => explorerTransaction.transaction(path.network, path.hash),
    // a transaction's content never changes; whether its outputs are spent does, block by block
    () => ({ "cache-control": "public, max-age=20" }),
  ),
  serve(
    api.blocks,
    { family: "explorer", spend: "request" },
    ({ path, query }) => explorer.blocks(path.network, query.page, query.limit),
    () => ({ "cache-control": "public, max-age=5" }),
  ),
  serve(
    api.block,
    { family: "explorer", spend: "request" },
    ({ path }) => explorer.block(path.network, path.id),
    // what a hash names never changes (a rolled-back block disappears: 404); a number's block can, near the tip
    (found, { path }) => ({
      "cache-control": typeof path.id === "string" ? "public, max-age=86400" : "public, max-age=20",
      link: `</v2/explorer/${path.network}/block/${found.hash}/txs>; rel="transactions"`,
    }),
  ),
  serve(
    api.blockTransactions,
    { family: "explorer", spend: "request" },
    ({ path, query }) => explorer.blockTransactions(path.network, path.id, query.page, query.limit),
    (_, { path }) => ({
      "cache-control": typeof path.id === "string" ? "public, max-age=86400" : "public, max-age=20",
    }),
  ),
  serve(
    api.stats,
    { family: "explorer", spend: "request" },
    ({ path }) => explorer.stats(path.network),
    () => ({ "cache-control": "public, max-age=5" }),
  ),
  serve(
    api.dreps,
    { family: "explorer", spend: "request" },
    ({ path, query }) => explorerDReps.dreps(path.network, query),
    () => ({ "cache-control": "public, max-age=20" }),
  ),
  ...graphqlRoutes("mainnet", api.graphql.path),
  ...graphqlRoutes("preprod", api.graphqlPreprod.path),
  {
    method: "GET",
    path: "/v1/graphiql/:asset",
    access: "public",
    run: (ctx) =>
      Effect.promise(async () =>
        await graphiqlAsset(ctx.params.asset!).then((r) =>
          r && compressOnce(r, `/v1/graphiql/${ctx.params.asset}`)
        ) ??
          toResponse(new NotFoundError({ message: `No GraphiQL asset ${ctx.params.asset}` }))
      ),
  },
  ...ogmiosRoutes("mainnet", api.ogmios.path),
  ...ogmiosRoutes("preprod", api.ogmiosPreprod.path),
  ...dashboardRoutes,
];
