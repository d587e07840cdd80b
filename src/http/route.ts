/**
 * What a route is: a method and path, who may call it, and what runs. The server's route table (routes.ts) and
 * the adapters that build routes (rest/endpoint.ts) share these types from here, so neither imports the other
 * upwards.
 */
import type { Effect } from "effect";
import type { Access, AccessShape, Grant } from "@layers/access.ts";
import type { AppConfig, AppConfigShape } from "@layers/config.ts";
import type { Cache } from "@layers/cache.ts";
import type { Dependencies } from "@layers/dependencies.ts";
import type { AddressSummaries } from "@layers/address_summaries.ts";
import type { PriceFeed } from "@layers/price_feed.ts";
import type { RelayProbe } from "@layers/relay_probe.ts";
import type { ChainDatabases } from "@layers/chain_db.ts";
import type { ChainTips } from "@layers/chain_tips.ts";
import type { ChainClock } from "@layers/chain_clock.ts";
import type { NodeClients } from "@layers/node_client.ts";
import type { GraphqlSchemas } from "@layers/graphql_schemas.ts";
import type { Metrics } from "@layers/metrics.ts";
import type { Spend } from "@layers/rate_limiter.ts";
import type { Family } from "@layers/usage.ts";
import type { Network } from "@schemas/network.ts";
import type { AccountStore } from "@layers/account_store.ts";
import type { AttemptThrottle } from "@layers/attempt_throttle.ts";
import type { Mailer } from "@layers/mailer.ts";

export type AppServices =
  | ChainDatabases
  | Dependencies
  | Access
  | AppConfig
  | Cache
  | AddressSummaries
  | PriceFeed
  | RelayProbe
  | ChainTips
  | ChainClock
  | NodeClients
  | GraphqlSchemas
  | Metrics
  | AccountStore
  | AttemptThrottle
  | Mailer;
export type Program = Effect.Effect<Response, never, AppServices>;

export interface RouteContext {
  readonly request: Request;
  readonly url: URL;
  /** The path's `:name` segments, decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** Present on protected routes: the caller's key and its rate-limit state. */
  readonly grant: Grant | undefined;
  readonly secret: string | undefined;
  /** The client's address (the socket's peer, or the client a trusted proxy names), for throttles and logs. */
  readonly clientAddress: string;
  readonly config: AppConfigShape;
  readonly access: AccessShape;
  readonly run: <A>(effect: Effect.Effect<A, never, AppServices>) => Promise<A>;
}

export interface Route {
  readonly method: "GET" | "POST";
  /** A path, with `:name` for a parameter segment (`/v2/explorer/:network/block/:id`). */
  readonly path: string;
  /**
   * Protected routes name their usage family, what they spend and the network they concern (a `:network` path
   * segment says it by itself; else a fixed one, or one read from the query): a key limited to other networks
   * is refused. Public routes need no key.
   */
  readonly access: {
    readonly family: Family;
    readonly spend: Spend;
    readonly network?: Network | ((url: URL) => Network | undefined);
  } | "public";
  /** An Effect program, or a plain Response for answers that need no I/O (no fiber to start). */
  readonly run: (ctx: RouteContext) => Program | Response;
}
