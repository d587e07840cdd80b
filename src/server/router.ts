/**
 * The HTTP front door: one `(Request) => Promise<Response>` for Deno.serve. It owns the mapping from URLs to
 * programs and turns every failure into the documented envelope; nothing past here sees a Request.
 */
import { Cause, Effect, type ManagedRuntime } from "effect";
import { health } from "@src/programs/health.ts";
import type { ChainDatabases } from "@layers/chain_db.ts";
import { json, restError } from "./responses.ts";

export type AppServices = ChainDatabases;
export type Handler = (request: Request) => Promise<Response>;

export const makeHandler = (runtime: ManagedRuntime.ManagedRuntime<AppServices, unknown>): Handler => {
  const run = <A>(program: Effect.Effect<A, never, AppServices>, toResponse: (a: A) => Response) =>
    runtime.runPromise(
      program.pipe(
        Effect.map(toResponse),
        Effect.catchAllCause((cause) => {
          const requestId = crypto.randomUUID();
          return Effect.as(
            Effect.logError("unhandled failure", Cause.pretty(cause)).pipe(
              Effect.annotateLogs({ requestId }),
            ),
            restError(500, `Internal error (request id ${requestId})`),
          );
        }),
      ),
    );

  return (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/health") {
      if (request.method !== "GET" && request.method !== "HEAD") {
        return Promise.resolve(
          restError(405, `${request.method} is not allowed on /health`, { allow: "GET" }),
        );
      }
      return run(health(), (h) => json(h, h.status === "ok" ? 200 : 503, { "cache-control": "no-store" }));
    }
    return Promise.resolve(restError(404, `No route for ${request.method} ${url.pathname}`));
  };
};
