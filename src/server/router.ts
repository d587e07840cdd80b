/**
 * The HTTP front door: one `(Request) => Promise<Response>` for Deno.serve. It finds the route (404/405 before
 * anything else), passes protected routes through `Access` (key, status, limits, usage), runs the route's
 * program and turns every failure into the documented envelope; nothing past here sees a Request.
 */
import { Cause, Effect, type ManagedRuntime } from "effect";
import { Access, type AccessDenied, type Grant } from "@layers/access.ts";
import type { AppConfig } from "@layers/config.ts";
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
  readonly run: (grant: Grant | undefined) => Program;
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
    run: (grant) => Effect.map(keyInfo(grant!), (info) => json(info, 200, { "cache-control": "no-store" })),
  },
];

const internalError = (cause: Cause.Cause<unknown>) => {
  const requestId = crypto.randomUUID();
  return Effect.as(
    Effect.logError("unhandled failure", Cause.pretty(cause)).pipe(Effect.annotateLogs({ requestId })),
    restError(500, `Internal error (request id ${requestId})`),
  );
};

export const makeHandler = (runtime: ManagedRuntime.ManagedRuntime<AppServices, unknown>): Handler => {
  const respond = (program: Program) => runtime.runPromise(Effect.catchAllCause(program, internalError));

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
    if (route.access === "public") return respond(route.run(undefined));
    const { family, spend } = route.access;
    const secret = apiKeyOf(request, url);
    return respond(
      Effect.flatMap(Access, (access) => access.authorize(secret, family, spend)).pipe(
        Effect.matchEffect({
          onFailure: (e) =>
            e._tag === "AccessDenied"
              ? Effect.succeed(deniedResponse(e as AccessDenied))
              : Effect.succeed(restError(503, "The key store is unavailable; try again shortly")),
          onSuccess: (grant) =>
            Effect.map(route.run(grant), (response) => {
              for (const [k, v] of Object.entries(rateLimitHeaders(grant.limit))) response.headers.set(k, v);
              return response;
            }),
        }),
      ),
    );
  };
};
