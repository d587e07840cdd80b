/**
 * `GET /v1/key`: what the calling key is and which limits apply to it, so a client can check its key and tier
 * without the dashboard. The secret itself is never echoed, only its hint. Pure: everything it needs is in the
 * grant and the configured limits.
 */
import type { Grant } from "@layers/access.ts";
import type { Limits } from "@layers/config.ts";

export const keyInfo = (grant: Grant, limits: Limits) => {
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
};
