/**
 * What a Blockfrost-dialect answer may fail with, and how each failure reaches the wire: Blockfrost's
 * `{status_code, error, message}` with its status. Programs fail with the domain's tagged errors, the front door
 * with its refusals (src/http/refusal.ts, layers/access.ts) and its own edge (no route, wrong method, repeated
 * parameter, a defect); only this file knows the dialect's statuses and builds its envelope. As Blockfrost does,
 * a missing or refused key is 403.
 */
import { Match } from "effect";
import type { AccessDenied } from "@layers/access.ts";
import type {
  DatabaseUnavailable,
  InvalidParameter,
  NodeNotConfigured,
  NodeRejected,
  NodeUnavailable,
  NotFoundError,
} from "@src/domain/errors.ts";
import { json } from "@src/http/json.ts";
import { keyStoreDownMessage, type Refusal, throttledMessage } from "@src/http/refusal.ts";
import { rateLimitHeaders, retryAfterSeconds } from "@src/http/rate_limit_headers.ts";

/** What a program behind `serveBlockfrost` (endpoint.ts) may fail with. */
export type BlockfrostFailure =
  | InvalidParameter
  | NotFoundError
  | DatabaseUnavailable
  | NodeUnavailable
  | NodeRejected
  | NodeNotConfigured;

const reasons: Readonly<Record<number, string>> = {
  400: "Bad Request",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** Blockfrost's error body: `{status_code, error: <reason phrase>, message}`. */
export const blockfrostError = (status: number, message: string, headers: HeadersInit = {}): Response =>
  json({ status_code: status, error: reasons[status] ?? "Error", message }, status, headers);

export const toBlockfrostResponse = (failure: BlockfrostFailure): Response =>
  Match.value(failure).pipe(
    Match.tagsExhaustive({
      InvalidParameter: (e) => blockfrostError(400, `Invalid ${e.parameter}: ${e.reason}`),
      NotFoundError: (e) => blockfrostError(404, e.message),
      DatabaseUnavailable: (e) =>
        blockfrostError(503, `The ${e.network} database is unavailable; try again shortly`, {
          "retry-after": "1",
        }),
      NodeUnavailable: (e) => blockfrostError(503, e.message, { "retry-after": "1" }),
      // the ledger's (or the devnet's) reason, with its details: what a client shows its user
      NodeRejected: (e) => blockfrostError(400, rejectionMessage(e)),
      // no node to take a submission or an evaluation: said plainly, not retried
      NodeNotConfigured: (e) =>
        blockfrostError(
          503,
          `No node is configured for ${e.network}: transactions cannot be ${e.action} here. Set ` +
            `${e.network.toUpperCase()}_OGMIOS_URL to relay them to an Ogmios` +
            (e.devnetPossible
              ? ", or set DEVNET_BLOCK_SECONDS above 0 (it is 0) to run the local devnet."
              : "."),
        ),
    }),
  );

/** The node's refusal as one line: its message, then its code and data (bigints as exact digits). */
const rejectionMessage = (e: NodeRejected): string => {
  const data = e.error.data === undefined
    ? ""
    : ` ${JSON.stringify(e.error.data, (_, v) => typeof v === "bigint" ? v.toString() : v)}`;
  return `${e.error.message} (code ${e.error.code})${data}`;
};

/** The front door's refusals of a protected request, in this dialect. */
export const blockfrostRefusal = (refusal: Refusal): Response =>
  Match.value(refusal).pipe(
    Match.tagsExhaustive({
      AccessDenied: (e: AccessDenied) =>
        blockfrostError(e.status === 401 ? 403 : e.status, e.message, {
          ...rateLimitHeaders(e.limit),
          ...(e.status === 429 && e.limit ? { "retry-after": retryAfterSeconds(e.limit.resetMs) } : {}),
        }),
      AuthThrottled: (e) => {
        const seconds = retryAfterSeconds(e.waitMs);
        return blockfrostError(429, throttledMessage(seconds), { "retry-after": seconds });
      },
      KeyStoreUnavailable: () => blockfrostError(503, keyStoreDownMessage, { "retry-after": "1" }),
    }),
  );
