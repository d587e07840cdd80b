/**
 * Every URL the service answers, with who may call it and what it costs (spec: Endpoints). A newcomer finds an
 * endpoint here first; `run` leads to its program.
 */
import { Effect, Either, Option, Schema } from "effect";
import { PriceFeed } from "@layers/price_feed.ts";
import { poolStatus } from "@src/programs/pool_status.ts";
import * as explorer from "@src/programs/explorer.ts";
import * as explorerAddress from "@src/programs/explorer_address.ts";
import * as explorerDReps from "@src/programs/explorer_dreps.ts";
import * as explorerPool from "@src/programs/explorer_pool.ts";
import * as explorerTransaction from "@src/programs/explorer_transaction.ts";
import { poolInfo, poolInfoNetwork } from "@src/programs/pool_info.ts";
import { stakeAccount } from "@src/programs/stake_account.ts";
import { stakeAddressNetwork } from "@src/domain/cardano_ids.ts";
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
import { type Decoded, type EndpointAccess, serve } from "@src/rest/endpoint.ts";
import { ChainDatabaseUnreachable, NotReady, UpgradeExpected } from "@src/rest/edge_failures.ts";
import { toResponse } from "@src/rest/failures.ts";
import { NotFoundError } from "@src/domain/errors.ts";
import { docsAsset, docsPage, openApiDocument } from "@src/rest/openapi.ts";
import { Metrics } from "@layers/metrics.ts";
import { graphqlBadRequest, graphqlBodyTooLarge, graphqlHttp, graphqlRefusal } from "@src/graphql/http.ts";
import { graphiqlAsset, graphiqlHtml } from "@src/graphql/graphiql.ts";
import { graphqlSdl } from "@src/graphql/sdl.ts";
import { dashboardAccounts } from "@src/dashboard/account_service.ts";
import { makeDashboardRoutes } from "@src/dashboard/routes.ts";
import { unreadableRequestPage } from "@src/dashboard/failures.ts";
import { compressOnce } from "./compression.ts";
import { htmlPage } from "./html_page.ts";
import { landingHtml } from "./landing_page.ts";
import { ogmiosBadRequest, ogmiosHttp } from "./ogmios_http.ts";
import { ogmiosWebSocket } from "./ogmios_ws.ts";
import { metricsOnMainPort, metricsPath } from "./metrics_http.ts";
import { readBody, tooLargeMessage } from "@src/http/request_body.ts";

const noStore = { "cache-control": "no-store" };
const encodeHealth = Schema.encodeSync(Health);
const encodeKeyInfo = Schema.encodeSync(KeyInfo);
/** A REST endpoint: the network a request concerns, when it concerns one, read from its decoded parameters. */
const rest = <P, Q>(network?: EndpointAccess<P, Q>["network"]): EndpointAccess<P, Q> => ({
  family: "rest",
  spend: "request",
  ...(network ? { network } : {}),
});
/** The decoded `network` query parameter (these endpoints default it to mainnet). */
const queryNetwork = <P>({ query }: Decoded<P, { readonly network: Network }>) => Either.right(query.network);
/** An explorer endpoint: its network is its decoded `{network}` path segment. */
const explorerAccess = <P extends { readonly network: Network }, Q>(): EndpointAccess<P, Q> => ({
  family: "explorer",
  spend: "request",
  network: ({ path }) => Either.right(path.network),
});

const ogmiosRoutes = (network: Network, base: string): Array<Route> => [
  {
    method: "POST",
    path: base,
    access: { family: "ogmios", spend: "request", network },
    malformed: ogmiosBadRequest,
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
    malformed: graphqlBadRequest,
    run: (ctx) =>
      Effect.flatMap(
        readBody(ctx.request, ctx.config.maxBodyBytes),
        (body) =>
          body._tag === "TooLarge"
            ? Effect.succeed(graphqlBodyTooLarge(tooLargeMessage(body.limit)))
            : graphqlHttp(body.text, network, ctx.grant!.key.tier),
      ),
    refuse: graphqlRefusal,
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
  malformed: unreadableRequestPage,
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
    rest(({ query }) => poolInfoNetwork(query.poolId, query.network)),
    ({ query, network }) => poolInfo(query.poolId, network!),
    () => ({ "cache-control": "public, max-age=60" }),
  ),
  serve(
    api.stakeAccount,
    rest(({ query }) => Either.right(stakeAddressNetwork(query.address))),
    ({ query, network }) => stakeAccount(query.address, network!),
    () => ({ "cache-control": "public, max-age=20" }),
  ),
  serve(
    api.poolStatus,
    rest(queryNetwork),
    ({ query }) => poolStatus(query.network),
    () => ({ "cache-control": "no-store" }),
  ),
  serve(
    api.protocolParameters,
    rest(queryNetwork),
    ({ query }) => protocolParametersFromNode(query.network),
    () => ({ "cache-control": "public, max-age=3600" }),
  ),
  serve(
    api.txStatus,
    rest(queryNetwork),
    ({ query }) => txStatus(query.txHash, query.network),
    (status) => ({ "cache-control": status.found ? "public, max-age=5" : "public, max-age=2" }),
  ),
  serve(
    api.pool,
    explorerAccess(),
    ({ path }) => explorerPool.pool(path.network, path.poolId),
    () => ({ "cache-control": "public, max-age=60" }),
  ),
  serve(
    api.address,
    explorerAccess(),
    ({ path }) => explorerAddress.address(path.network, path.addr),
    () => ({ "cache-control": "public, max-age=5" }),
  ),
  serve(
    api.addressUtxos,
    explorerAccess(),
    ({ path, query }) => explorerAddress.addressUtxos(path.network, path.addr, query.page, query.limit),
    () => ({ "cache-control": "public, max-age=5" }),
  ),
  serve(
    api.tx,
    explorerAccess(),
    ({ path }) => explorerTransaction.transaction(path.network, path.hash),
    // a transaction's content never changes; whether its outputs are spent does, block by block
    () => ({ "cache-control": "public, max-age=20" }),
  ),
  serve(
    api.blocks,
    explorerAccess(),
    ({ path, query }) => explorer.blocks(path.network, query.page, query.limit),
    () => ({ "cache-control": "public, max-age=5" }),
  ),
  serve(
    api.block,
    explorerAccess(),
    ({ path }) => explorer.block(path.network, path.id),
    // what a hash names never changes (a rolled-back block disappears: 404); a number's block can, near the tip
    (found, { path }) => ({
      "cache-control": typeof path.id === "string" ? "public, max-age=86400" : "public, max-age=20",
      link: `</v2/explorer/${path.network}/block/${found.hash}/txs>; rel="transactions"`,
    }),
  ),
  serve(
    api.blockTransactions,
    explorerAccess(),
    ({ path, query }) => explorer.blockTransactions(path.network, path.id, query.page, query.limit),
    (_, { path }) => ({
      "cache-control": typeof path.id === "string" ? "public, max-age=86400" : "public, max-age=20",
    }),
  ),
  serve(
    api.stats,
    explorerAccess(),
    ({ path }) => explorer.stats(path.network),
    () => ({ "cache-control": "public, max-age=5" }),
  ),
  serve(
    api.dreps,
    explorerAccess(),
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
