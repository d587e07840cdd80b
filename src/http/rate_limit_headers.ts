/** The spec's rate-limit signals (spec: "Rate-limit signals"), on granted answers and on 429s alike. */
import type { LimitDecision } from "@layers/rate_limiter.ts";

/** `X-RateLimit-*` headers: the per-second limit, what is left of it, and seconds until the window resets. */
export const rateLimitHeaders = (limit: LimitDecision | undefined): Record<string, string> =>
  limit
    ? {
      "x-ratelimit-limit": String(limit.limit),
      "x-ratelimit-remaining": String(limit.remaining),
      "x-ratelimit-reset": String(Math.max(1, Math.ceil(limit.resetMs / 1000))),
    }
    : {};

/** The same headers set on an answer's own (no record built per answer). */
export const setRateLimitHeaders = (headers: Headers, limit: LimitDecision | undefined) => {
  if (!limit) return;
  headers.set("x-ratelimit-limit", String(limit.limit));
  headers.set("x-ratelimit-remaining", String(limit.remaining));
  headers.set("x-ratelimit-reset", String(Math.max(1, Math.ceil(limit.resetMs / 1000))));
};

/** Seconds a refused caller should wait, never 0. */
export const retryAfterSeconds = (ms: number): string => String(Math.max(1, Math.ceil(ms / 1000)));
