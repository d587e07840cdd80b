/**
 * What a route is: a method and path, who may call it, and what runs. The server's route table (routes.ts) and
 * the adapters that build routes (each adapter's routes.ts) share these types from here, so neither imports the other
 * upwards.
 */
import type { Context, Effect, Either } from "effect";
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
import type { Refusal } from "./refusal.ts";

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

/** A request as the router read it, once: its path's segments and its query's parameters. */
export interface RequestInput {
  readonly request: Request;
  readonly url: URL;
  /** The path's `:name` segments, decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** The query's parameters, each given once (the router answers 400 to a repeated one, query_params.ts). */
  readonly query: Readonly<Record<string, string>>;
}

export interface RouteContext extends RequestInput {
  /** Present on protected routes: the caller's key and its rate-limit state. */
  readonly grant: Grant | undefined;
  readonly secret: string | undefined;
  /** The client's address (the socket's peer, or the client a trusted proxy names), for throttles and logs. */
  readonly clientAddress: string;
  readonly config: AppConfigShape;
  readonly access: AccessShape;
  readonly run: <A>(effect: Effect.Effect<A, never, AppServices>) => Promise<A>;
  /** The app's services, read once when the handler is built: a route that answers without I/O needs no fiber. */
  readonly services: Context.Context<AppServices>;
}

/** What runs: an Effect program, or a plain Response for answers that need no I/O (no fiber to start). */
export type Runner = (ctx: RouteContext) => Program | Response;

/**
 * A request's parameters decoded once, before the access check: the network it concerns (what the key must be
 * allowed), and the program over those same decoded values, so the check and the answer cannot disagree.
 */
export interface Prepared {
  readonly network?: Network;
  readonly run: Runner;
}

interface RouteShape {
  readonly method: "GET" | "POST";
  /** A path, with `:name` for a parameter segment (`/v2/explorer/:network/block/:id`). */
  readonly path: string;
  /**
   * Protected routes name their usage family, what they spend, and a fixed network when they concern one (the
   * others say theirs in `prepare`): a key limited to other networks is refused. Public routes need no key.
   */
  readonly access: {
    readonly family: Family;
    readonly spend: Spend;
    readonly network?: Network;
  } | "public";
  /** The route's own envelope for a request it cannot read (a repeated parameter); the REST one otherwise. */
  readonly malformed?: (message: string) => Response;
  /**
   * How the router answers this protected route's refusals (key, limits, address throttle, key store), in the
   * route's own protocol; REST's `{error: {code, message}}` when absent.
   */
  readonly refuse?: (refusal: Refusal) => Response;
  /** The route also answers under `/key/{key}`, the key given in the path (clients that take only a base URL). */
  readonly keyInPath?: boolean;
}

/**
 * How a dialect answers the front door's own failures on the paths it owns (its `prefixes`): no route, a method
 * the path does not take, a defect. Paths no dialect claims get the service's envelope (REST's).
 */
export interface DialectEdge {
  readonly prefixes: ReadonlyArray<string>;
  readonly notFound: (method: string, path: string) => Response;
  readonly methodNotAllowed: (method: string, path: string, allow: ReadonlyArray<string>) => Response;
  readonly internal: (requestId: string) => Response;
}

/**
 * A route either runs on the request as it is, or first `prepare`s it: Right, the decoded input with its network;
 * Left, the answer to input that does not decode (a 400, given once the key is checked).
 */
export type Route =
  & RouteShape
  & ({ readonly run: Runner } | {
    readonly prepare: (input: RequestInput) => Either.Either<Prepared, Response>;
  });
