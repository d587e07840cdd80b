/**
 * `/metrics` over HTTP, and the request figures the router records for every answer. The exposition is off by
 * default: with `METRICS_TOKEN` the main port answers it to `Authorization: Bearer <token>` (401 otherwise);
 * with `METRICS_PORT` a listener of its own answers it without a token (main.ts), for a port kept off the
 * internet; with neither, `/metrics` is a 404 like any unknown path.
 */
import { Option, Redacted } from "effect";
import { expositionContentType, latencyBuckets, type MetricsShape } from "@layers/metrics.ts";
import { MethodNotAllowed, MetricsTokenRefused, RouteNotFound } from "@src/rest/edge_failures.ts";
import { toResponse } from "@src/rest/failures.ts";

export const metricsPath = "/metrics";

/** What the router records per answer: a map walk and a few increments, no allocation. */
export const makeRequestMetrics = (metrics: MetricsShape) => {
  const requests = metrics.counter(
    "cds_http_requests_total",
    "HTTP answers by route family (rest, explorer, graphql, ogmios, account; public: keyless routes; none: no " +
      "route) and status.",
    ["family", "status"],
  );
  const latency = metrics.histogram(
    "cds_http_request_duration_seconds",
    "Time from a request's arrival to its answer's headers, by route family.",
    ["family"],
    latencyBuckets,
  );
  return (family: string, status: number, ms: number) => {
    requests.labels(family, status).inc();
    latency.labels(family).observe(ms / 1000);
  };
};

const exposition = (metrics: MetricsShape) =>
  new Response(metrics.render(), {
    headers: { "content-type": expositionContentType, "cache-control": "no-store" },
  });

/** Compares in time independent of where the strings differ. */
const sameSecret = (given: string, expected: string): boolean => {
  let diff = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= (given.charCodeAt(i) | 0) ^ expected.charCodeAt(i);
  return diff === 0;
};

/** `GET /metrics` on the main port. */
export const metricsOnMainPort = (
  request: Request,
  token: Option.Option<Redacted.Redacted<string>>,
  metrics: MetricsShape,
): Response => {
  if (Option.isNone(token)) {
    return toResponse(new RouteNotFound({ method: request.method, path: metricsPath }));
  }
  const header = request.headers.get("authorization") ?? "";
  const given = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? "";
  if (!sameSecret(given, Redacted.value(token.value))) {
    return toResponse(new MetricsTokenRefused());
  }
  return exposition(metrics);
};

/** The METRICS_PORT listener's handler: /metrics without a token, nothing else. */
export const metricsListener = (metrics: MetricsShape) => (request: Request): Response => {
  const url = new URL(request.url);
  if (url.pathname !== metricsPath) {
    return toResponse(new RouteNotFound({ method: request.method, path: url.pathname }));
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    return toResponse(new MethodNotAllowed({ method: request.method, path: metricsPath, allow: ["GET"] }));
  }
  return exposition(metrics);
};
