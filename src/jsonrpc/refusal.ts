/**
 * An access refusal in JSON-RPC's terms, for both transports (HTTP and WebSocket): a spent limit is error -32029
 * with `retryAfter` and `remaining` (a spent submission budget names itself in the message), any other refusal
 * (revoked key, missing permission, no credits) the key's refusal with the status REST would answer.
 */
import type { AccessDenied } from "@layers/access.ts";
import { rateLimitHeaders, retryAfterSeconds } from "@src/http/rate_limit_headers.ts";
import { AccessRefused, RateLimited } from "./protocol_errors.ts";

export const refusalFailure = (denied: AccessDenied): RateLimited | AccessRefused =>
  denied.status === 429 && denied.limit
    ? new RateLimited({
      retryAfterMs: denied.limit.resetMs,
      remaining: denied.limit.remaining,
      ...(denied.limit.exceeded === "submissions" ? { reason: denied.message } : {}),
    })
    : new AccessRefused({ status: denied.status, message: denied.message });

/** An HTTP answer's headers for a refusal: the spent budget's figures, not the request's the router granted. */
export const refusalHeaders = (denied: AccessDenied): Record<string, string> =>
  denied.status === 429 && denied.limit
    ? { ...rateLimitHeaders(denied.limit), "retry-after": retryAfterSeconds(denied.limit.resetMs) }
    : {};
