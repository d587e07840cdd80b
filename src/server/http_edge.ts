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

/** An answer now or later: most answers are known without I/O and go out without a promise or a microtask. */
export type Answer = Response | Promise<Response>;

/** Wraps a handler that receives the request's id; what it returns goes out decorated. */
export const withHttpEdge = (
  settings: EdgeSettings,
  handle: (request: Request, requestId: string, info?: Deno.ServeHandlerInfo) => Answer,
) => {
  const { corsOrigins, hsts, answered } = settings;
  /** Every header an answer gets, set in one pass; the encoding last, as it may replace the answer. */
  const decorated = (request: Request, given: Response, requestId: string, started: number): Answer => {
    let response = given;
    const { headers } = response;
    if (response.status === 101) {
      // a WebSocket upgrade: Deno may hold its headers immutable
      try {
        headers.set(requestIdHeader, requestId);
      } catch { /* the upgrade goes out without it */ }
      answered?.(request, response, requestId, performance.now() - started);
      return response;
    }
    try {
      headers.set(requestIdHeader, requestId);
    } catch { // immutable headers (Response.redirect, a fetched answer): decorate a copy
      response = new Response(response.body, response);
      response.headers.set(requestIdHeader, requestId);
    }
    const out = response.headers;
    // a refused body is not read to its end: the connection is not reused, and saying so lets a client stop
    // sending (Deno still reads and drops what keeps arriving before it closes; request_body.ts says more)
    if (response.status === 413) out.set("connection", "close");
    const contentType = out.get("content-type");
    withSecurityHeaders(out, contentType);
    if (hsts !== undefined) out.set("strict-transport-security", hsts);
    withCors(corsOrigins, request, out);
    const encoded = negotiateEncoding(request, response, contentType);
    if (encoded instanceof Response) {
      answered?.(request, encoded, requestId, performance.now() - started);
      return encoded;
    }
    return encoded.then((r) => {
      answered?.(request, r, requestId, performance.now() - started);
      return r;
    });
  };
  /** The router turns failures into envelopes; this is the last guard. */
  const failed = (requestId: string) => toResponse(new InternalFailure({ requestId }));
  return (request: Request, info?: Deno.ServeHandlerInfo): Answer => {
    const started = performance.now();
    const requestId = requestIdOf(request);
    let answer: Answer;
    try {
      answer = handle(request, requestId, info);
    } catch {
      answer = failed(requestId);
    }
    return answer instanceof Response ? decorated(request, answer, requestId, started) : answer.then(
      (r) => decorated(request, r, requestId, started),
      () => decorated(request, failed(requestId), requestId, started),
    );
  };
};
