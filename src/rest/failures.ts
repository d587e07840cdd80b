/**
 * What a REST-family answer may fail with, and how each failure reaches the wire: the spec's `{error, message}`
 * with its status, or for access refusals the spec's `{error: {code, message}}` with the rate-limit signals.
 * Programs fail with the tagged errors of src/domain/errors.ts, the front door with those of edge_failures.ts
 * and layers/access.ts; only `toResponse` knows statuses, and no other file builds these envelopes.
 */
import { Match } from "effect";
import type { AccessDenied } from "@layers/access.ts";
import type {
  DatabaseUnavailable,
  InvalidParameter,
  NodeUnavailable,
  NotFoundError,
  PriceUnavailable,
} from "@src/domain/errors.ts";
import { json } from "@src/http/json.ts";
import { repeatedParameterMessage } from "@src/http/query_params.ts";
import { keyStoreDownMessage, throttledMessage } from "@src/http/refusal.ts";
import { rateLimitHeaders, retryAfterSeconds } from "@src/http/rate_limit_headers.ts";
import type { EdgeFailure } from "./edge_failures.ts";

/** What a program behind `serve` (endpoint.ts) may fail with. */
export type RestFailure =
  | InvalidParameter
  | NotFoundError
  | DatabaseUnavailable
  | PriceUnavailable
  | NodeUnavailable;

const reasons: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  405: "Method Not Allowed",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** The REST error body: `{error: <reason phrase>, message: <what went wrong>}`. */
const restError = (status: number, message: string, headers: HeadersInit = {}): Response =>
  json({ error: reasons[status] ?? "Error", message }, status, headers);

/** The auth/limit body: `{error: {code, message}}`. */
const accessError = (code: 401 | 403 | 429, message: string, headers: HeadersInit): Response =>
  json({ error: { code, message } }, code, headers);

const unready = (stopping: boolean) => ({
  "cache-control": "no-store",
  "retry-after": "1",
  ...(stopping ? { connection: "close" } : {}),
});

export const toResponse = (failure: RestFailure | EdgeFailure | AccessDenied): Response =>
  Match.value(failure).pipe(
    Match.tagsExhaustive({
      InvalidParameter: (e) => restError(400, `Invalid ${e.parameter}: ${e.reason}`),
      NotFoundError: (e) => restError(404, e.message),
      DatabaseUnavailable: (e) =>
        restError(503, `The ${e.network} database is unavailable; try again shortly`),
      PriceUnavailable: (e) => restError(503, e.message),
      NodeUnavailable: (e) => restError(503, e.message),
      RouteNotFound: (e) => restError(404, `No route for ${e.method} ${e.path}`),
      MethodNotAllowed: (e) =>
        restError(405, `${e.method} is not allowed on ${e.path}`, { allow: e.allow.join(", ") }),
      RepeatedParameter: (e) => restError(400, repeatedParameterMessage(e.parameter, e.count)),
      InternalFailure: (e) => restError(500, `Internal error (request id ${e.requestId})`),
      UpgradeExpected: (e) =>
        restError(400, `${e.path} expects a WebSocket upgrade (or POST a JSON-RPC request)`),
      MetricsTokenRefused: () =>
        restError(401, "The metrics token is missing or wrong (Authorization: Bearer <METRICS_TOKEN>)", {
          "www-authenticate": 'Bearer realm="metrics"',
        }),
      KeyStoreUnavailable: () => restError(503, keyStoreDownMessage),
      ChainDatabaseUnreachable: (e) =>
        restError(503, `The ${e.network} chain database is unavailable: ${e.message}`),
      NotReady: (e) => restError(503, `Not ready: ${e.reason}`, unready(e.stopping)),
      ServiceStarting: (e) =>
        restError(503, `The service is ${e.reason}; try again shortly`, unready(e.stopping)),
      AccessDenied: (e) =>
        accessError(e.status, e.message, {
          ...rateLimitHeaders(e.limit),
          ...(e.status === 429 && e.limit ? { "retry-after": retryAfterSeconds(e.limit.resetMs) } : {}),
          ...(e.status === 401 ? { "www-authenticate": 'apikey realm="cardano-data-service"' } : {}),
        }),
      AuthThrottled: (e) => {
        const seconds = retryAfterSeconds(e.waitMs);
        return accessError(429, throttledMessage(seconds), { "retry-after": seconds });
      },
    }),
  );
