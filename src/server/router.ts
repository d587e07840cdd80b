/**
 * The HTTP front door: one `(Request) => Promise<Response>` for Deno.serve. It finds the route in `routes.ts`
 * (404/405 before anything else, OPTIONS answered from the path's methods), reads the query once (a repeated
 * parameter is a 400), lets the route decode its input and name the network it concerns, passes protected routes
 * through `Access` (key, status, network and family, limits, usage) with that network, runs the route on that
 * same decoded input and turns every failure into the documented envelope.
 * Failed authentications are counted per client address (`auth_failures.ts`); an address past its allowance
 * gets 429 on protected routes before any key lookup. Every answer then goes out through `http_edge.ts`
 * (request id, security headers, CORS, compression); the request id is on every log line written while serving
 * it. Each answer is counted in the metrics by the matched route's family and its status (`metrics_http.ts`).
 */
import { Cause, Effect, Either, LogLevel, type ManagedRuntime, Option } from "effect";
import { Access, AccessDenied, type Grant, insufficientCredits, rateLimitedCounter } from "@layers/access.ts";
import { Metrics } from "@layers/metrics.ts";
import { AppConfig } from "@layers/config.ts";
import { asOneRequest } from "@layers/chain_replicas.ts";
import { type Cidr, clientAddressOf } from "@src/domain/client_address.ts";
import type {
  AppServices,
  DialectEdge,
  Prepared,
  Program,
  RequestInput,
  Route,
  RouteContext,
} from "@src/http/route.ts";
import { type QueryReading, readQuery, repeatedParameterMessage } from "@src/http/query_params.ts";
import { setRateLimitHeaders } from "@src/http/rate_limit_headers.ts";
import {
  AuthThrottled,
  InternalFailure,
  KeyStoreUnavailable,
  MethodNotAllowed,
  RepeatedParameter,
  RouteNotFound,
} from "@src/rest/edge_failures.ts";
import { toResponse } from "@src/rest/failures.ts";
import { apiKeyOf, keyedCaching } from "./access_http.ts";
import { makeAuthFailures } from "./auth_failures.ts";
import { optionsAnswer } from "./cors.ts";
import { type Answer, withHttpEdge } from "./http_edge.ts";
import { hstsValue } from "./security_headers.ts";
import { makeRequestMetrics } from "./metrics_http.ts";
import { makeRouteMatcher } from "./route_match.ts";
import { dialectEdges, routes } from "./routes.ts";

/** Deno.serve's handler; `info` gives the client's address (absent in callers that have none, e.g. tests). */
export type Handler = (request: Request, info?: Deno.ServeHandlerInfo) => Answer;

const noForwarding = { xForwardedFor: null, forwarded: null };
/** The last peer seen and its written form: a server's clients come back, and a benchmark is one peer. */
let lastPeer = "";
let lastOwn = "";

/** The client's address: the socket's peer, or the client a trusted proxy names (client_address.ts). */
const addressOf = (
  request: Request,
  info: Deno.ServeHandlerInfo | undefined,
  proxies: ReadonlyArray<Cidr>,
): string => {
  const addr = info?.remoteAddr;
  if (!addr || !("hostname" in addr)) return "local";
  // no proxy to believe: the peer's own address, written once per peer as clientAddressOf writes it
  if (proxies.length === 0) {
    if (addr.hostname !== lastPeer) {
      lastOwn = clientAddressOf(lastPeer = addr.hostname, noForwarding, proxies);
    }
    return lastOwn;
  }
  const { headers } = request;
  const forwarding = { xForwardedFor: headers.get("x-forwarded-for"), forwarded: headers.get("forwarded") };
  return clientAddressOf(addr.hostname, forwarding, proxies);
};

/** The route's input read once: `prepare`d (decoded, with its network), or the route's own `run` as it is. */
const prepareOf = (route: Route, input: RequestInput): Either.Either<Prepared, Response> =>
  "prepare" in route ? route.prepare(input) : Either.right({
    run: route.run,
    ...(route.access === "public" ? {} : { network: route.access.network }),
  });

/** A repeated query parameter, in the route's own envelope (the REST one unless it has another). */
const repeated = (route: Route, parameter: string, count: number): Response =>
  route.malformed
    ? route.malformed(repeatedParameterMessage(parameter, count))
    : toResponse(new RepeatedParameter({ parameter, count }));

/** The 500 envelope names the request id its log line carries (the run's `requestId` annotation). */
export const internalError = (requestId: string, dialect?: DialectEdge) => (cause: Cause.Cause<unknown>) =>
  Effect.as(
    Effect.logError("unhandled failure", Cause.pretty(cause)),
    dialect ? dialect.internal(requestId) : toResponse(new InternalFailure({ requestId })),
  );

/** The dialect that owns a path, if one claims it (its 404, 405 and 500 answers). */
const dialectOf = (pathname: string): DialectEdge | undefined =>
  dialectEdges.find((d) => d.prefixes.some((p) => pathname === p || pathname.startsWith(`${p}/`)));

/**
 * A path that carries its key (`/key/{key}/api/v0/…`): the key and the path without it. Only routes that take
 * the key in the path (`Route.keyInPath`) answer there; the key never reaches a log line (`redactedPath`).
 */
const keyPath = /^\/key\/([^/]+)(\/.*)$/;
const splitKeyPath = (pathname: string): { readonly key?: string; readonly pathname: string } => {
  const m = keyPath.exec(pathname);
  if (!m) return { pathname };
  let key = m[1]!;
  try {
    key = decodeURIComponent(key);
  } catch { /* an undecodable key is simply an unknown one */ }
  return { key, pathname: m[2]! };
};
/** A path as logs may show it: a key in it replaced. */
export const redactedPath = (pathname: string): string => pathname.replace(keyPath, "/key/…$2");

/** The Ogmios client asks `<http address>/health`; with the key in the query that becomes `?apikey=KEY/health`. */
const ogmiosHealthQuirk = (url: URL): URL | undefined => {
  if (!url.searchParams.get("apikey")?.endsWith("/health") || !url.pathname.endsWith("/ogmios")) {
    return undefined;
  }
  return new URL(`${url.pathname}/health`, url);
};

/**
 * The path of a URL without a query whose path `new URL` would leave as it is (no dot segment, escape or
 * character it would encode), read off the string; undefined for any other, which is parsed.
 */
const plainUrl = /^https?:\/\/[^/?#\\]*(\/[\w~/:@!$&'()*+,;=-]*)$/;
const plainPathOf = (url: string): string | undefined => plainUrl.exec(url)?.[1];

/** The reading of an absent query. */
const noQuery = (): QueryReading => ({ ok: true, query: Object.create(null) });

/** The routes whose path matches, in table order, with their decoded parameters (route_match.ts). */
const match = makeRouteMatcher(routes);

/** Builds the handler over a runtime whose layers are already built (it reads Access and AppConfig once). */
export const makeHandler = (runtime: ManagedRuntime.ManagedRuntime<AppServices, unknown>): Handler => {
  const [access, config, metrics, services] = runtime.runSync(
    Effect.all([Access, AppConfig, Metrics, Effect.context<AppServices>()]),
  );
  const recordAnswer = makeRequestMetrics(metrics);
  const authThrottled = rateLimitedCounter(metrics).labels("auth_failures");
  /** Each request's route family, for the metrics recorded once it is answered (no route: `none`). */
  const families = new WeakMap<Request, string>();
  /** Each request's client address, for the `answered` log line. */
  const addresses = new WeakMap<Request, string>();
  const debug = LogLevel.lessThanEqual(config.logLevel, LogLevel.Debug);
  const authFailures = makeAuthFailures(config.authFailuresPer10s);
  const withLimitHeaders = (response: Response, grant: Grant) => {
    if (response.status === 101) return response; // a WebSocket upgrade's headers are fixed
    // an answer refused by a later budget (a JSON-RPC submission's) already describes that budget
    const { headers } = response;
    if (!headers.has("x-ratelimit-limit")) setRateLimitHeaders(headers, grant.limit);
    keyedCaching(headers);
    return response;
  };

  const route = (request: Request, requestId: string, info?: Deno.ServeHandlerInfo): Answer => {
    const address = addressOf(request, info, config.trustedProxies);
    if (debug) addresses.set(request, address);
    const run = <A>(effect: Effect.Effect<A, never, AppServices>) =>
      runtime.runPromise(asOneRequest(Effect.annotateLogs(effect, { requestId, clientAddress: address })));
    const respond = (result: Program | Response): Answer =>
      result instanceof Response
        ? result
        : run(Effect.catchAllCause(result, internalError(requestId, dialect)));
    // a plain path is read off the URL string; anything `new URL` might rewrite (or a query) is parsed
    const plain = plainPathOf(request.url);
    let parsed: URL | undefined;
    if (plain === undefined) {
      const url = new URL(request.url);
      parsed = ogmiosHealthQuirk(url) ?? url;
    }
    const urlOf = () => parsed ??= new URL(request.url);
    const fullPath = plain ?? parsed!.pathname;
    const { key: keyInPath, pathname: asked } = splitKeyPath(fullPath);
    // a dialect's paths merge repeated slashes as its own hosts do (Blaze asks Blockfrost for `/api/v0//txs/…`)
    const merged = asked.includes("//") ? asked.replace(/\/{2,}/g, "/") : asked;
    const dialect = dialectOf(merged);
    const pathname = dialect ? merged : asked;
    const matched = match(pathname);
    const candidates = keyInPath === undefined ? matched : matched.filter((c) => c.route.keyInPath);
    if (candidates.length === 0) {
      const path = redactedPath(fullPath);
      return dialect
        ? dialect.notFound(request.method, path)
        : toResponse(new RouteNotFound({ method: request.method, path }));
    }
    families.set(request, candidates[0]!.family); // 405 and OPTIONS count as the path's family
    // the path's methods, for the answers that name them (OPTIONS, 405)
    const allowed = () => [...new Set(candidates.map((c) => c.route.method))];
    if (request.method === "OPTIONS") {
      return optionsAnswer(config.corsOrigins, request, allowed());
    }
    const method = request.method === "HEAD" ? "GET" : request.method;
    const found = candidates.find((c) => c.route.method === method);
    if (!found) {
      const path = redactedPath(fullPath);
      const allow = allowed();
      return dialect
        ? dialect.methodNotAllowed(request.method, path, allow)
        : toResponse(new MethodNotAllowed({ method: request.method, path, allow }));
    }
    const { route, params } = found;
    if (found.family !== candidates[0]!.family) families.set(request, found.family);
    // one reading of the query for the key, the access check and the program: a repeated parameter is refused
    const reading = parsed ? readQuery(parsed) : noQuery();
    if (!reading.ok) return repeated(route, reading.parameter, reading.count);
    const { query } = reading;
    // the URL object only for the routes that ask for it
    const input: RequestInput = {
      request,
      get url() {
        return urlOf();
      },
      params,
      query,
    };
    const secret = apiKeyOf(request, query, keyInPath);
    const ctx = (grant: Grant | undefined): RouteContext => ({
      request,
      get url() {
        return urlOf();
      },
      params,
      query,
      grant,
      secret,
      clientAddress: address,
      config,
      access,
      run,
      services,
    });
    const prepared = prepareOf(route, input);
    if (route.access === "public") {
      return Either.isLeft(prepared) ? prepared.left : respond(prepared.right.run(ctx(undefined)));
    }
    const { family, spend } = route.access;
    const refuse = route.refuse ?? toResponse; // refusals in the route's own protocol
    // undecodable input concerns no network: the key is still checked (and the request counted) before its 400
    const network = Either.isRight(prepared) ? prepared.right.network : route.access.network;
    const waitMs = authFailures.blockedFor(address, Date.now());
    if (waitMs > 0) {
      authThrottled.inc();
      return refuse(new AuthThrottled({ waitMs }));
    }
    const denied = (d: AccessDenied) => {
      // spent credits are the key owner's business, not a guess at keys
      if (d.status === 401 && d.message !== insufficientCredits) authFailures.record(address, Date.now());
      return refuse(d);
    };
    const granted = (grant: Grant): Program | Response => {
      const result = Either.isRight(prepared) ? prepared.right.run(ctx(grant)) : prepared.left;
      return result instanceof Response
        ? withLimitHeaders(result, grant)
        : Effect.map(result, (response) => withLimitHeaders(response, grant));
    };
    // fast path: a cached key and an in-memory limiter decide without I/O
    const now = access.authorizeNow(secret, family, spend, Date.now(), network);
    if (now instanceof AccessDenied) return denied(now);
    if (now !== undefined) return respond(granted(now));
    /** The access check with I/O (a key-store read, or a limiter that could not decide at once), on a fiber. */
    const onFiber = (): Promise<Response> => {
      // a key the cache does not know costs a key-store read: held to the address's allowance, concurrent or not
      const release = access.isCached(secret, Date.now())
        ? () => {}
        : authFailures.beginLookup(address, secret ?? "", Date.now());
      if (release === undefined) {
        authThrottled.inc();
        return Promise.resolve(refuse(new AuthThrottled({ waitMs: 1_000 })));
      }
      return run(
        access.authorize(secret, family, spend, network).pipe(
          Effect.ensuring(Effect.sync(release)),
          // the program runs on this same fiber (its defects answered 500 below)
          Effect.flatMap((grant) => {
            const r = granted(grant);
            return r instanceof Response ? Effect.succeed(r) : r;
          }),
          Effect.catchTags({
            AccessDenied: (d) => Effect.succeed(denied(d)),
            DatabaseUnavailable: () => Effect.succeed(refuse(new KeyStoreUnavailable())),
          }),
          Effect.catchAllCause(internalError(requestId, dialect)),
        ),
      );
    };
    // a cached key and a limiter with I/O (Redis): one round trip and no fiber, unless the limiter cannot decide
    const later = access.authorizeAsync(secret, family, spend, Date.now(), network);
    return later
      ? later.then((g) => g instanceof AccessDenied ? denied(g) : respond(granted(g)), onFiber)
      : onFiber();
  };

  return withHttpEdge({
    corsOrigins: config.corsOrigins,
    hsts: hstsValue(Option.getOrUndefined(config.publicUrl), config.hstsMaxAge),
    answered: (request, response, requestId, ms) => {
      recordAnswer(families.get(request) ?? "none", response.status, ms);
      if (!debug) return;
      runtime.runSync(
        Effect.logDebug("answered").pipe(Effect.annotateLogs({
          requestId,
          clientAddress: addresses.get(request) ?? "local",
          method: request.method,
          path: redactedPath(new URL(request.url).pathname),
          status: response.status,
          ms: Math.round(ms * 10) / 10,
        })),
      );
    },
  }, route);
};
