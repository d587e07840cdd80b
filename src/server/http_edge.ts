/**
 * What every answer passes through on its way out, in one place: its request id, the security headers (HSTS
 * too behind an https:// PUBLIC_URL), CORS for the operator's origins, `connection: close` on a 413, and
 * compression as the client accepts it. The router produces answers; this decorates them, whatever route (or
 * 404/405/401/429/500) they came from.
 */
import type { CorsOrigins } from "@layers/config.ts";
import { InternalFailure } from "@src/rest/edge_failures.ts";
import { toResponse } from "@src/rest/failures.ts";
import { negotiateEncoding } from "@src/http/compression.ts";
import { withCors } from "./cors.ts";
import { requestIdHeader, requestIdOf } from "./request_id.ts";
import { withSecurityHeaders } from "./security_headers.ts";

export interface EdgeSettings {
  readonly corsOrigins: CorsOrigins;
  /** Strict-Transport-Security's value for every answer (security_headers.ts `hstsValue`); none = not sent. */
  readonly hsts?: string;
  /** Called once per answer (the router counts it in the metrics and logs it at debug level). */
  readonly answered?: (request: Request, response: Response, requestId: string, ms: number) => void;
}

/** Wraps a handler that receives the request's id; what it returns goes out decorated. */
export const withHttpEdge = (
  settings: EdgeSettings,
  handle: (request: Request, requestId: string, info?: Deno.ServeHandlerInfo) => Promise<Response>,
) =>
async (request: Request, info?: Deno.ServeHandlerInfo): Promise<Response> => {
  const started = performance.now();
  const requestId = requestIdOf(request);
  let response: Response;
  try {
    response = await handle(request, requestId, info);
  } catch { // the router turns failures into envelopes; this is the last guard
    response = toResponse(new InternalFailure({ requestId }));
  }
  if (response.status === 101) {
    // a WebSocket upgrade: Deno may hold its headers immutable
    try {
      response.headers.set(requestIdHeader, requestId);
    } catch { /* the upgrade goes out without it */ }
  } else {
    try {
      response.headers.set(requestIdHeader, requestId);
    } catch { // immutable headers (Response.redirect, a fetched answer): decorate a copy
      response = new Response(response.body, response);
      response.headers.set(requestIdHeader, requestId);
    }
    // a refused body is not read to its end: the connection is not reused, and saying so lets a client stop
    // sending (Deno still reads and drops what keeps arriving before it closes; request_body.ts says more)
    if (response.status === 413) response.headers.set("connection", "close");
    withSecurityHeaders(response.headers);
    if (settings.hsts !== undefined) response.headers.set("strict-transport-security", settings.hsts);
    withCors(settings.corsOrigins, request, response.headers);
    response = await negotiateEncoding(request, response);
  }
  settings.answered?.(request, response, requestId, performance.now() - started);
  return response;
};
