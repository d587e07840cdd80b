/**
 * `GET /v1/key`: what the calling key is, which limits apply to it and whose they are, so a client can check its
 * key and tier without the dashboard. The FREE keys of a person's account share one budget
 * (src/domain/budget_subject.ts): `budget` says so, with how many keys share it and the account-wide figures
 * spent today and in the last hour. The secret itself is never echoed, only its hint.
 */
import { Effect } from "effect";
import { Access, type AccessShape, type Grant } from "@layers/access.ts";
import { AccountStore } from "@layers/account_store.ts";
import type { Limits } from "@layers/config.ts";
import type { BudgetUse } from "@layers/rate_limiter.ts";
import type { KeyInfo } from "@schemas/service.ts";
import { sharesAccountBudget } from "@src/domain/budget_subject.ts";

/**
 * The answer from what was read: how many keys share the budget (null: unknown) and what it spent. Built in its
 * encoded form (ISO strings, integers), so it is sent as it is, without a Schema pass.
 */
export const keyInfoOf = (
  grant: Grant,
  limits: Limits,
  keys: number | null,
  use: BudgetUse | undefined,
): typeof KeyInfo.Encoded => {
  const key = grant.key;
  const tier = key.tier;
  const orNull = (n: number) => (n > 0 ? n : null);
  const shared = sharesAccountBudget(key);
  const daily = limits.dailyRequests[tier];
  const hourly = limits.submissionsPerHour[tier];
  const requestsToday = daily > 0 && use ? use.requestsToday : null;
  const submissionsLastHour = use ? use.submissionsLastHour : null;
  return {
    name: key.name,
    hint: key.hint,
    tier,
    status: key.status,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    limits: {
      requestsPerSecond: orNull(limits.ratePerSecond[tier]),
      graphqlRequestsPerSecond: orNull(limits.graphqlPerSecond[tier]),
      requestsPerDay: orNull(daily),
      submissionsPerHour: orNull(hourly),
    },
    budget: {
      shared,
      keys,
      description: shared
        ? `shared by the account's ${keys ?? "FREE"} active FREE key${keys === 1 ? "" : "s"}: ` +
          "their requests and submissions count against these limits together"
        : "this key's own",
      requestsToday,
      requestsLeftToday: daily > 0 && requestsToday !== null ? Math.max(0, daily - requestsToday) : null,
      submissionsLastHour,
      submissionsLeftThisHour: hourly > 0 && submissionsLastHour !== null
        ? Math.max(0, hourly - submissionsLastHour)
        : null,
    },
  };
};

/**
 * Without I/O when it needs none (a key's own budget, and its use known: read along with the grant by the Redis
 * limiter, or from an in-memory one): no fiber, and with Redis no second round trip. Undefined means "run
 * `keyInfo`".
 */
export const keyInfoNow = (grant: Grant, limits: Limits, access: AccessShape, now: number) =>
  sharesAccountBudget(grant.key)
    ? undefined
    : grant.limit?.use
    ? keyInfoOf(grant, limits, 1, grant.limit.use)
    : access.budgetUseNow
    ? keyInfoOf(grant, limits, 1, access.budgetUseNow(grant.key, now))
    : undefined;

export const keyInfo = (grant: Grant, limits: Limits) =>
  Effect.gen(function* () {
    const key = grant.key;
    const now = Date.now();
    const keys = sharesAccountBudget(key)
      ? yield* Effect.flatMap(AccountStore, (store) => store.keys(key.accountId)).pipe(
        Effect.map((all) =>
          all.filter((k) =>
            sharesAccountBudget(k) && k.status === "active" &&
            (k.expiresAt === null || k.expiresAt.getTime() > now)
          ).length
        ),
        Effect.orElseSucceed(() => null),
      )
      : 1;
    const use = grant.limit?.use ?? (yield* Effect.flatMap(Access, (access) => access.budgetUse(key)));
    return keyInfoOf(grant, limits, keys, use);
  });
