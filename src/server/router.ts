/**
 * The HTTP front door: one `(Request) => Promise<Response>` for Deno.serve. It finds the route (404/405 before
 * anything else), passes protected routes through `Access` (key, status, limits, usage), runs the route's
 * program and turns every failure into the documented envelope; nothing past here sees a Request.
 */
import { Cause, Effect, type ManagedRuntime } from "effect";
import { Access, AccessDenied, type Grant } from "@layers/access.ts";
import { AppConfig, type AppConfigShape } from "@layers/config.ts";
import type { ChainDatabases } from "@layers/chain_db.ts";
import type { Spend } from "@layers/rate_limiter.ts";
import type { Family } from "@layers/usage.ts";
import { health } from "@src/programs/health.ts";
import { keyInfo } from "@src/programs/key_info.ts";
import { apiKeyOf, deniedResponse, rateLimitHeaders } from "./access_http.ts";
import { json, restError } from "./responses.ts";

export type AppServices = ChainDatabases | Access | AppConfig;
export type Handler = (request: Request) => Promise<Response>;

type Program = Effect.Effect<Response, never, AppServices>;

interface Route {
  readonly method: "GET" | "POST";
  readonly path: string;
  /** Protected routes name their usage family and what they spend; public ones need no key. */
  readonly access: { readonly family: Family; readonly spend: Spend } | "public";
  /** An Effect program, or a plain function for answers that need no I/O (no fiber to start). */
  readonly run: (grant: Grant | undefined, config: AppConfigShape) => Program | Response;
}

const routes: ReadonlyArray<Route> = [
  {
    method: "GET",
    path: "/health",
    access: "public",
    run: () =>
      Effect.map(health(), (h) => json(h, h.status === "ok" ? 200 : 503, { "cache-control": "no-store" })),
  },
  {
    method: "GET",
    path: "/v1/key",
    access: { family: "account", spend: "request" },
    run: (grant, config) => json(keyInfo(grant!, config.limits), 200, { "cache-control": "no-store" }),
  },
];

const internalError = (cause: Cause.Cause<unknown>) => {
  const requestId = crypto.randomUUID();
  return Effect.as(
    Effect.logError("unhandled failure", Cause.pretty(cause)).pipe(Effect.annotateLogs({ requestId })),
    restError(500, `Internal error (request id ${requestId})`),
  );
};

/** Builds the handler over a runtime whose layers are already built (it reads Access and AppConfig once). */
export const makeHandler = (runtime: ManagedRuntime.ManagedRuntime<AppServices, unknown>): Handler => {
  const [access, config] = runtime.runSync(Effect.all([Access, AppConfig]));
  const respond = (result: Program | Response): Promise<Response> =>
    result instanceof Response
      ? Promise.resolve(result)
      : runtime.runPromise(Effect.catchAllCause(result, internalError));
  const withLimitHeaders = (response: Response, grant: Grant) => {
    for (const [k, v] of Object.entries(rateLimitHeaders(grant.limit))) response.headers.set(k, v);
    return response;
  };
  const granted = (route: Route, grant: Grant): Promise<Response> | Response => {
    const result = route.run(grant, config);
    return result instanceof Response
      ? withLimitHeaders(result, grant)
      : respond(Effect.map(result, (response) => withLimitHeaders(response, grant)));
  };

  return (request) => {
    const url = new URL(request.url);
    const candidates = routes.filter((r) => r.path === url.pathname);
    if (candidates.length === 0) {
      return Promise.resolve(restError(404, `No route for ${request.method} ${url.pathname}`));
    }
    const method = request.method === "HEAD" ? "GET" : request.method;
    const route = candidates.find((r) => r.method === method);
    if (!route) {
      const allow = candidates.map((r) => r.method).join(", ");
      return Promise.resolve(
        restError(405, `${request.method} is not allowed on ${url.pathname}`, { allow }),
      );
    }
    if (route.access === "public") return respond(route.run(undefined, config));
    const { family, spend } = route.access;
    const secret = apiKeyOf(request, url);
    // fast path: a cached key and an in-memory limiter decide without I/O
    const now = access.authorizeNow(secret, family, spend, Date.now());
    if (now instanceof AccessDenied) return Promise.resolve(deniedResponse(now));
    if (now !== undefined) return Promise.resolve(granted(route, now));
    return respond(
      access.authorize(secret, family, spend).pipe(
        Effect.map((grant) => granted(route, grant)),
        Effect.flatMap((r) => (r instanceof Response ? Effect.succeed(r) : Effect.promise(() => r))),
        Effect.catchTags({
          AccessDenied: (denied) => Effect.succeed(deniedResponse(denied)),
          DatabaseUnavailable: () =>
            Effect.succeed(restError(503, "The key store is unavailable; try again shortly")),
        }),
      ),
    );
  };
};
