/**
 * `GET /v1/key`: what the calling key is and which limits apply to it, so a client can check its key and tier
 * without the dashboard. The secret itself is never echoed, only its hint.
 */
import { Effect } from "effect";
import type { Grant } from "@layers/access.ts";
import { AppConfig } from "@layers/config.ts";

export const keyInfo = Effect.fn("key.info")(function* (grant: Grant) {
  const { limits } = yield* AppConfig;
  const tier = grant.key.tier;
  const orNull = (n: number) => (n > 0 ? n : null);
  return {
    name: grant.key.name,
    hint: grant.key.hint,
    tier,
    status: grant.key.status,
    createdAt: grant.key.createdAt.toISOString(),
    expiresAt: grant.key.expiresAt?.toISOString() ?? null,
    limits: {
      requestsPerSecond: orNull(limits.ratePerSecond[tier]),
      graphqlRequestsPerSecond: orNull(limits.graphqlPerSecond[tier]),
      requestsPerDay: orNull(limits.dailyRequests[tier]),
      submissionsPerHour: orNull(limits.submissionsPerHour[tier]),
    },
  };
});
