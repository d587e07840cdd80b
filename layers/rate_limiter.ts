/**
 * `RateLimiter`: budgets per subject (spec: Limits): a key, or an account whose FREE keys share one budget
 * (src/domain/budget_subject.ts; the caller names the subject). A granted request spends one unit of its tier's
 * per-second rate and of its daily quota; GraphQL also spends its own per-second rate; a submission also spends
 * the hourly submission budget. A refused request spends nothing, so a flood refused by the rate cannot eat the
 * daily quota (and, for an account's shared budget, lock its other keys out for the day).
 * The per-second rates are sliding logs of the last second's grant times: a request is granted while fewer than
 * the limit were granted in the second before it, so no one-second interval ever holds more than the limit
 * (windows aligned to wall-clock seconds let a burst across a boundary have two budgets). Submissions slide over
 * the hour the same way; the daily quota is a UTC day. Two implementations deciding alike (`decide`): in memory
 * (one instance) and Redis (one Lua script per request, so instances share budgets exactly; per instance in
 * memory while Redis is down).
 */
import { Clock, Context, Data, Effect, Layer, Option } from "effect";
import type { Redis } from "ioredis";
import type { Limits } from "./config.ts";
import type { Tier } from "./key_store.ts";
import { Dependencies, waitFor } from "./dependencies.ts";
import { ServiceDatabase } from "./service_db.ts";
import { budgetSubject } from "@src/domain/budget_subject.ts";

export type Spend = "request" | "graphql" | "submission";

export type Budget = "rate" | "graphql" | "daily" | "submissions";

/**
 * A spend's outcome, described by the budget that decided it (X-RateLimit-* headers): the refusing budget when
 * one refused, otherwise the tighter of the per-second budgets the request spent (the general rate, or the
 * GraphQL rate for a GraphQL request when less of it is left).
 */
export interface LimitDecision {
  readonly allowed: boolean;
  /** Which budget refused, when one did. */
  readonly exceeded?: Budget;
  /** The budget these figures describe. */
  readonly budget: Budget;
  /** That budget's size and what is left of it in its window. */
  readonly limit: number;
  readonly remaining: number;
  /** Milliseconds until that budget has room again: its oldest grant leaves the window, or the day ends. */
  readonly resetMs: number;
  /**
   * The subject's slow budgets as spent with this request, when the limiter read them in the same step (Redis:
   * the spend script returns them, so `/v1/key` needs no second round trip); absent otherwise (ask `use`).
   */
  readonly use?: BudgetUse;
}

export class RateLimiterUnavailable
  extends Data.TaggedError("RateLimiterUnavailable")<{ readonly message: string }> {}

/** What a subject has spent of its slow budgets, without spending anything (`/v1/key`, the dashboard). */
export interface BudgetUse {
  /** Requests counted today (UTC); 0 when the tier has no daily quota (nothing is counted then). */
  readonly requestsToday: number;
  readonly submissionsLastHour: number;
}

export interface RateLimiterShape {
  /** `subject`: whose budget (budget_subject.ts): a key's id, or `account:<id>` for an account's FREE keys. */
  readonly consume: (
    subject: string,
    tier: Tier,
    spend: Spend,
  ) => Effect.Effect<LimitDecision, RateLimiterUnavailable>;
  /** The same, synchronously at a given time, for limiters that need no I/O (the request fast path). */
  readonly consumeNow?: (subject: string, tier: Tier, spend: Spend, now: number) => LimitDecision;
  /**
   * The same at a given time as a Promise, for limiters with I/O (Redis): the request path without a fiber.
   * Undefined: take `consume` (a resilient limiter while Redis is away); rejected: the limiter could not decide.
   */
  readonly consumeAsync?: (
    subject: string,
    tier: Tier,
    spend: Spend,
    now: number,
  ) => Promise<LimitDecision> | undefined;
  /**
   * The hourly submission budget alone, for a request already granted (its rate and daily quota spent) that
   * turns out to be a submission: JSON-RPC over HTTP learns it from the body.
   */
  readonly consumeSubmission: (
    subject: string,
    tier: Tier,
  ) => Effect.Effect<LimitDecision, RateLimiterUnavailable>;
  readonly use: (subject: string) => Effect.Effect<BudgetUse, RateLimiterUnavailable>;
  /** The same, synchronously at a given time, for limiters that need no I/O (`/v1/key` without a fiber). */
  readonly useNow?: (subject: string, now: number) => BudgetUse;
}

export class RateLimiter extends Context.Tag("RateLimiter")<RateLimiter, RateLimiterShape>() {}

const dayMs = 86_400_000;
const hourMs = 3_600_000;
const secondMs = 1_000;

/**
 * What a subject had spent when a request came, before it: both implementations turn it into a decision the
 * same way (`decide`), and record the request only when that decision grants it.
 */
interface Counts {
  /** Grants in the second before `now` (the sliding window), and when the oldest of them was (0: none). */
  readonly rate: number;
  readonly rateOldest: number;
  readonly graphql: number;
  readonly graphqlOldest: number;
  /** Requests granted today (UTC). */
  readonly daily: number;
  /** Submissions in the last hour, and when the oldest of them leaves the window. */
  readonly submissions: number;
  readonly submissionResetMs: number;
  readonly now: number;
}

const unlimited = Number.MAX_SAFE_INTEGER;

/** The submission budget's decision alone, from the submissions already in the last hour. */
const decideSubmission = (limits: Limits, tier: Tier, recent: number, resetMs: number): LimitDecision => {
  const size = limits.submissionsPerHour[tier];
  const figures = {
    budget: "submissions" as const,
    limit: size,
    remaining: size > 0 ? Math.max(0, size - recent - 1) : unlimited,
    resetMs: resetMs > 0 ? resetMs : hourMs,
  };
  return size > 0 && recent >= size
    ? { ...figures, remaining: 0, allowed: false, exceeded: "submissions" }
    : { ...figures, allowed: true };
};

/**
 * Grants when every budget the request spends has room (a limit of 0 is no limit): fewer than `limit` grants in
 * the last second (so never more than `limit` in any one-second interval), fewer than the daily quota today.
 */
const decide = (limits: Limits, tier: Tier, spend: Spend, c: Counts): LimitDecision => {
  /**
   * A per-second budget's figures: it slides, so a unit comes back when its oldest grant is a second old
   * (`allowed` says whether it has room).
   */
  const perSecond = (budget: Budget, size: number, used: number, oldest: number): LimitDecision => {
    const full = size > 0 && used >= size;
    const resetMs = Math.max(1, (used > 0 ? oldest : c.now) + secondMs - c.now);
    return full
      ? { budget, limit: size, remaining: 0, resetMs, allowed: false, exceeded: budget }
      : { budget, limit: size, remaining: size > 0 ? size - used - 1 : unlimited, resetMs, allowed: true };
  };
  const rate = perSecond("rate", limits.ratePerSecond[tier], c.rate, c.rateOldest);
  if (!rate.allowed) return rate;
  const graphql = spend === "graphql"
    ? perSecond("graphql", limits.graphqlPerSecond[tier], c.graphql, c.graphqlOldest)
    : undefined;
  if (graphql && !graphql.allowed) return graphql;
  const daily = limits.dailyRequests[tier];
  if (daily > 0 && c.daily >= daily) {
    return {
      budget: "daily",
      limit: daily,
      remaining: 0,
      resetMs: dayMs - (c.now % dayMs),
      allowed: false,
      exceeded: "daily",
    };
  }
  if (spend === "submission") {
    const submission = decideSubmission(limits, tier, c.submissions, c.submissionResetMs);
    if (!submission.allowed) return submission;
  }
  return graphql && graphql.limit > 0 && graphql.remaining < rate.remaining ? graphql : rate;
};

/**
 * A sliding log: the times of the grants of the last second, oldest first (`head` skips those that left it).
 * It holds at most the limit's worth, because a grant is only recorded while there is room.
 */
interface GrantLog {
  times: Array<number>;
  head: number;
}

/** Forgets the grants a second old or older; how many are left, and the oldest of them (0: none). */
const slide = (log: GrantLog, now: number): [number, number] => {
  while (log.head < log.times.length && log.times[log.head]! <= now - secondMs) log.head++;
  if (log.head > 32 && log.head * 2 > log.times.length) {
    log.times = log.times.slice(log.head);
    log.head = 0;
  }
  const n = log.times.length - log.head;
  return [n, n > 0 ? log.times[log.head]! : 0];
};

/**
 * What a restarted instance already knows of today: requests per subject today, submission times in the last
 * hour.
 */
export interface MemoryLimiterHistory {
  readonly day: number;
  readonly requestsToday: ReadonlyMap<string, number>;
  readonly submissions: ReadonlyMap<string, ReadonlyArray<number>>;
}

export const makeMemoryRateLimiter = (limits: Limits, history?: MemoryLimiterHistory): RateLimiterShape => {
  const logs = new Map<string, GrantLog>();
  const days = new Map<string, { day: number; count: number }>(
    [...(history?.requestsToday ?? [])].map(([subject, count]) => [subject, { day: history!.day, count }]),
  );
  const submissions = new Map<string, Array<number>>(
    [...(history?.submissions ?? [])].map(([subject, times]) => [subject, [...times]]),
  );
  let decisions = 0;
  /** Drops the logs of subjects idle for a second, now and then, so memory follows the active subjects only. */
  const sweep = (now: number) => {
    for (const [key, log] of logs) {
      if (log.times.length === 0 || log.times[log.times.length - 1]! <= now - secondMs) logs.delete(key);
    }
  };
  const logOf = (key: string) => {
    let log = logs.get(key);
    if (!log) logs.set(key, log = { times: [], head: 0 });
    return log;
  };
  /** The subject's submission times in the hour before `now` (older ones forgotten). */
  const lastHour = (subject: string, now: number) => {
    const recent = (submissions.get(subject) ?? []).filter((t) => t > now - hourMs);
    submissions.set(subject, recent);
    return recent;
  };
  const resetOf = (recent: ReadonlyArray<number>, now: number) =>
    recent.length > 0 ? recent[0]! + hourMs - now : 0;
  const todayOf = (subject: string, now: number) => {
    const d = days.get(subject);
    return d && d.day === Math.floor(now / dayMs) ? d.count : 0;
  };
  const consumeNow = (subject: string, tier: Tier, spend: Spend, now: number): LimitDecision => {
    if (++decisions % 100_000 === 0) sweep(now);
    const rateLog = limits.ratePerSecond[tier] > 0 ? logOf(subject) : undefined;
    const graphqlLog = spend === "graphql" && limits.graphqlPerSecond[tier] > 0
      ? logOf(`${subject}:graphql`)
      : undefined;
    const [rate, rateOldest] = rateLog ? slide(rateLog, now) : [0, 0];
    const [graphql, graphqlOldest] = graphqlLog ? slide(graphqlLog, now) : [0, 0];
    const daily = limits.dailyRequests[tier] > 0 ? todayOf(subject, now) : 0;
    const recent = spend === "submission" ? lastHour(subject, now) : [];
    const decision = decide(limits, tier, spend, {
      rate,
      rateOldest,
      graphql,
      graphqlOldest,
      daily,
      submissions: recent.length,
      submissionResetMs: resetOf(recent, now),
      now,
    });
    if (!decision.allowed) return decision;
    // only a granted request spends: refusals cost no budget
    rateLog?.times.push(now);
    graphqlLog?.times.push(now);
    if (limits.dailyRequests[tier] > 0) days.set(subject, { day: Math.floor(now / dayMs), count: daily + 1 });
    if (spend === "submission") recent.push(now);
    return decision;
  };
  const consumeSubmissionNow = (subject: string, tier: Tier, now: number): LimitDecision => {
    const recent = lastHour(subject, now);
    const decision = decideSubmission(limits, tier, recent.length, resetOf(recent, now));
    if (decision.allowed) recent.push(now);
    return decision;
  };
  const useNow = (subject: string, now: number): BudgetUse => ({
    requestsToday: todayOf(subject, now),
    submissionsLastHour: lastHour(subject, now).length,
  });
  return {
    consume: (subject, tier, spend) =>
      Effect.map(Clock.currentTimeMillis, (now) => consumeNow(subject, tier, spend, now)),
    consumeNow,
    consumeSubmission: (subject, tier) =>
      Effect.map(Clock.currentTimeMillis, (now) => consumeSubmissionNow(subject, tier, now)),
    use: (subject) => Effect.map(Clock.currentTimeMillis, (now) => useNow(subject, now)),
    useNow,
  };
};

/**
 * Lua that drops a key's submissions older than an hour from its sorted set, adds this one (`member` at `now`)
 * when the limit allows (0 = none), and sets the script's `subs` (those before it) and `oldest`.
 */
const submissionLua = (set: string, now: string, limit: string, member: string) => `
  local now = tonumber(${now})
  redis.call('ZREMRANGEBYSCORE', ${set}, '-inf', now - 3600000)
  subs = redis.call('ZCARD', ${set})
  local limit = tonumber(${limit})
  if limit == 0 or subs < limit then
    redis.call('ZADD', ${set}, now, ${member})
    redis.call('PEXPIRE', ${set}, 3600000)
  end
  local first = redis.call('ZRANGE', ${set}, 0, 0, 'WITHSCORES')
  if first[2] then oldest = tonumber(first[2]) end`;

/**
 * One script per batch of spends, atomic: for each spend in the order sent, it reads every budget the request
 * spends (the per-second ones are sorted sets of the last second's grant times, the sliding log of `slide`; the
 * day a counter; submissions a sorted set of the last hour), grants by `decide`'s rule, and records the request
 * in them only when granted, exactly as one script per spend would. It also returns the slow budgets as spent
 * after it (what `use` reads), so a request needs no second round trip. KEYS: 4 per spend; ARGV: 6 per spend.
 * A limit of 0 is no limit (nothing recorded); -1 says the request does not spend that budget.
 */
const spendScript = `
local function spend(sKey, gKey, dKey, subKey, now, rateLimit, graphqlLimit, dailyLimit, subsLimit, member)
  -- an instance that read its clock before another's later grant is decided at that grant's time: the logs'
  -- times never go back in the order decisions are made, so no second of a log holds more grants than its limit
  for _, key in ipairs({sKey, gKey}) do
    local top = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2]
    if top and tonumber(top) > now then now = tonumber(top) end
  end
  local function window(key, span)
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now - span)
    local n = redis.call('ZCARD', key)
    if n == 0 then return 0, 0 end
    return n, tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
  end
  local rate, rateOldest, graphql, graphqlOldest, daily, subs, subsOldest = 0, 0, 0, 0, 0, 0, 0
  if rateLimit > 0 then rate, rateOldest = window(sKey, 1000) end
  if graphqlLimit > 0 then graphql, graphqlOldest = window(gKey, 1000) end
  if dailyLimit > 0 then daily = tonumber(redis.call('GET', dKey) or '0') end
  if subsLimit >= 0 then subs, subsOldest = window(subKey, 3600000) end
  local granted = (rateLimit <= 0 or rate < rateLimit) and (graphqlLimit <= 0 or graphql < graphqlLimit)
    and (dailyLimit <= 0 or daily < dailyLimit) and (subsLimit <= 0 or subs < subsLimit)
  if granted then
    if rateLimit > 0 then
      redis.call('ZADD', sKey, now, member)
      redis.call('PEXPIRE', sKey, 2000)
    end
    if graphqlLimit > 0 then
      redis.call('ZADD', gKey, now, member)
      redis.call('PEXPIRE', gKey, 2000)
    end
    if dailyLimit > 0 and redis.call('INCR', dKey) == 1 then redis.call('PEXPIRE', dKey, 90000000) end
    if subsLimit >= 0 then
      redis.call('ZADD', subKey, now, member)
      redis.call('PEXPIRE', subKey, 3600000)
      if subs == 0 then subsOldest = now end
    end
  end
  -- what \`use\` would read right after: today's requests and the last hour's submissions, this one included
  local dailyAfter = daily
  if granted and dailyLimit > 0 then dailyAfter = daily + 1 end
  local subsAfter
  if subsLimit >= 0 then
    subsAfter = subs
    if granted then subsAfter = subs + 1 end
  else
    subsAfter = redis.call('ZCOUNT', subKey, '(' .. (now - 3600000), '+inf')
  end
  return {rate, rateOldest, graphql, graphqlOldest, daily, subs, subsOldest, now, dailyAfter, subsAfter}
end
local out = {}
for i = 0, #KEYS / 4 - 1 do
  local k, a = i * 4, i * 6
  local r = spend(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], tonumber(ARGV[a + 1]),
    tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5]), ARGV[a + 6])
  for _, v in ipairs(r) do out[#out + 1] = v end
end
return out`;

/** Figures the spend script returns per spend. */
const spendFigures = 10;

/** Batches out at once (on one connection, so Redis still runs them in the order sent). */
const batchesOut = 2;

/** Spends sent in one script at most, so one batch never holds Redis for long. */
const batchLimit = 256;

/** A spend waiting for its batch: its 4 keys and 6 arguments, and what to do with its figures. */
interface SpendWaiting {
  readonly keys: ReadonlyArray<string>;
  readonly args: ReadonlyArray<string>;
  readonly resolve: (figures: Array<number>) => void;
  readonly reject: (cause: unknown) => void;
}

/** The submission budget alone (`consumeSubmission`): the same steps as the spend script's. */
const submissionScript = `
local subs = 0
local oldest = 0
${submissionLua("KEYS[1]", "ARGV[1]", "ARGV[2]", "ARGV[3]")}
return {subs, oldest}`;

const redisFailure = (cause: unknown) =>
  new RateLimiterUnavailable({ message: `Redis: ${cause instanceof Error ? cause.message : String(cause)}` });

export const makeRedisRateLimiter = (redis: Redis, limits: Limits, prefix = "cds:rl"): RateLimiterShape => {
  // a grant's member in the sorted sets: unique across instances (several grants may share a millisecond)
  const instance = crypto.randomUUID();
  let sequence = 0;
  // sent by SHA (EVALSHA, the script body only when Redis does not hold it yet), not whole on every request
  // (no numberOfKeys: a batch gives its own, 4 per spend)
  redis.defineCommand("cdsSpend", { lua: spendScript });
  redis.defineCommand("cdsSubmission", { numberOfKeys: 1, lua: submissionScript });
  const scripts = redis as unknown as Record<
    "cdsSpend" | "cdsSubmission",
    (...args: Array<string>) => Promise<unknown>
  >;
  /**
   * Spends are batched without waiting: a spend goes at once while fewer than `batchesOut` batches are out;
   * those that come meanwhile go together in the next as soon as one is answered. So a request waits one round
   * trip at most behind others, and under load one script (one command to write, parse and run) decides many
   * requests. Redis decides them in the order sent, atomically, exactly as one script each would. Two out rather
   * than one: measured back to back, /v1/key 11.4k and 14.0k req/s against 10.8k and 9.2k (Redis waits less).
   */
  const queue: Array<SpendWaiting> = [];
  let sending = 0;
  const send = () => {
    const batch = queue.splice(0, batchLimit);
    sending++;
    const keys = batch.flatMap((w) => w.keys);
    scripts.cdsSpend(String(keys.length), ...keys, ...batch.flatMap((w) => w.args)).then(
      (figures) => {
        const all = figures as Array<number>;
        batch.forEach((w, i) => w.resolve(all.slice(i * spendFigures, (i + 1) * spendFigures)));
      },
      (cause) => batch.forEach((w) => w.reject(cause)),
    ).finally(() => {
      sending--;
      if (queue.length > 0 && sending < batchesOut) send();
    });
  };
  const spendFiguresOf = (keys: SpendWaiting["keys"], args: SpendWaiting["args"]) =>
    new Promise<Array<number>>((resolve, reject) => {
      queue.push({ keys, args, resolve, reject });
      if (sending < batchesOut) send();
    });
  const consumeAsync = async (
    subject: string,
    tier: Tier,
    spend: Spend,
    now: number,
  ): Promise<LimitDecision> => {
    const day = Math.floor(now / dayMs);
    const [
      rate,
      rateOldest,
      graphql,
      graphqlOldest,
      daily,
      subs,
      subsOldest,
      at,
      dailyAfter,
      subsAfter,
    ] = await spendFiguresOf([
      `${prefix}:${subject}:s`,
      `${prefix}:${subject}:g`,
      `${prefix}:${subject}:d:${day}`,
      `${prefix}:${subject}:sub`,
    ], [
      String(now),
      String(limits.ratePerSecond[tier]),
      spend === "graphql" ? String(limits.graphqlPerSecond[tier]) : "-1",
      String(limits.dailyRequests[tier]),
      spend === "submission" ? String(limits.submissionsPerHour[tier]) : "-1",
      `${now}:${instance}:${sequence++}`,
    ]) as [number, number, number, number, number, number, number, number, number, number];
    // `at`: the time the script decided at (never before the logs' newest grant)
    const decision = decide(limits, tier, spend, {
      rate,
      rateOldest,
      graphql,
      graphqlOldest,
      daily,
      submissions: subs,
      submissionResetMs: subsOldest > 0 ? subsOldest + hourMs - at : 0,
      now: at,
    });
    return { ...decision, use: { requestsToday: dailyAfter, submissionsLastHour: subsAfter } };
  };
  return {
    consume: (subject, tier, spend) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.tryPromise({
          try: () => consumeAsync(subject, tier, spend, now),
          catch: redisFailure,
        })),
    consumeAsync,
    consumeSubmission: (subject, tier) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.tryPromise({
          try: async () => {
            const [subs, oldest] = (await scripts.cdsSubmission(
              `${prefix}:${subject}:sub`,
              String(now),
              String(limits.submissionsPerHour[tier]),
              `${now}:${instance}:${sequence++}`,
            )) as [number, number];
            return decideSubmission(limits, tier, subs, oldest > 0 ? oldest + hourMs - now : 0);
          },
          catch: redisFailure,
        })),
    use: (subject) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.tryPromise({
          try: async () => {
            const [daily, subs] = await Promise.all([
              redis.get(`${prefix}:${subject}:d:${Math.floor(now / dayMs)}`),
              redis.zcount(`${prefix}:${subject}:sub`, `(${now - hourMs}`, "+inf"),
            ]);
            return { requestsToday: Number(daily ?? 0), submissionsLastHour: subs };
          },
          catch: redisFailure,
        })),
  };
};

/** A usage row's key, as much of it as names its budget (budget_subject.ts). */
interface HolderRow {
  readonly keyId: string;
  readonly tier: Tier;
  readonly accountId: string;
  readonly personalAccount: boolean;
}

const subjectOf = (r: HolderRow) =>
  budgetSubject({
    id: Number(r.keyId),
    tier: r.tier,
    accountId: Number(r.accountId),
    personalAccount: r.personalAccount,
  });

const holderColumns = `k.id::text as "keyId", k.tier, k.account_id::text as "accountId",
  (a.email is not null) as "personalAccount"`;

/** Today's requests and the last hour's submissions per budget subject, as recorded in the service database. */
const readHistory = Effect.gen(function* () {
  const { sql } = yield* ServiceDatabase;
  const now = yield* Clock.currentTimeMillis;
  const day = Math.floor(now / dayMs);
  const today = new Date(day * dayMs);
  return yield* Effect.all([
    sql<HolderRow & { n: string }>`
      select ${sql.literal(holderColumns)}, u.n from (
        select key_id, sum(requests)::text as n from cds.usage_daily
        where day = ${today.toISOString().slice(0, 10)}::date group by key_id
      ) u join cds.api_key k on k.id = u.key_id join cds.account a on a.id = k.account_id`,
    sql<HolderRow & { at: Date }>`
      select ${sql.literal(holderColumns)}, s.at from cds.submission s
      join cds.api_key k on k.id = s.key_id join cds.account a on a.id = k.account_id
      where s.at > ${new Date(now - hourMs)} order by s.at`,
  ]).pipe(
    Effect.map(([requests, subs]): MemoryLimiterHistory => {
      const requestsToday = new Map<string, number>();
      for (const r of requests) {
        const subject = subjectOf(r);
        requestsToday.set(subject, (requestsToday.get(subject) ?? 0) + Number(r.n));
      }
      const submissions = new Map<string, Array<number>>();
      for (const s of subs) {
        const subject = subjectOf(s);
        submissions.set(subject, [...(submissions.get(subject) ?? []), s.at.getTime()]);
      }
      return { day, requestsToday, submissions };
    }),
    Effect.tapError((e) => Effect.logWarning(`limits start empty: cannot read today's usage: ${e.message}`)),
    Effect.orElseSucceed(() => undefined),
  );
});

/**
 * In-memory budgets, started from the usage already recorded in the service database today, so a restart does
 * not hand every FREE key a fresh daily quota or submission allowance.
 */
export const RateLimiterMemory = (limits: Limits): Layer.Layer<RateLimiter, never, ServiceDatabase> =>
  Layer.effect(RateLimiter, Effect.map(readHistory, (history) => makeMemoryRateLimiter(limits, history)));

/** How often the degraded mode is reported while it lasts. */
const degradedWarningMs = 60_000;

/**
 * Redis budgets that survive a Redis outage: while Redis does not answer, each instance limits on its own
 * (in-memory budgets, started from the recorded usage like RateLimiterMemory), so submissions are never unlimited;
 * one warning a minute says so. The first spend Redis answers again is shared and exact again.
 */
export const makeResilientRateLimiter = (
  shared: RateLimiterShape,
  local: RateLimiterShape,
  report: (healthy: boolean, error?: string) => Effect.Effect<void> = () => Effect.void,
): RateLimiterShape => {
  let degradedSince: number | undefined;
  let warnedAt = 0;
  /** `spend` on Redis; on the instance's own budgets while Redis does not answer. */
  const resilient = <A>(
    spend: (limiter: RateLimiterShape) => Effect.Effect<A, RateLimiterUnavailable>,
  ) =>
    spend(shared).pipe(
      Effect.tap(() =>
        degradedSince === undefined ? Effect.void : Effect.suspend(() => {
          const lasted = Date.now() - degradedSince!;
          degradedSince = undefined;
          return Effect.zipRight(
            report(true),
            Effect.logInfo(
              `Redis answers again after ${Math.round(lasted / 1000)} s: limits are shared again`,
            ),
          );
        })
      ),
      Effect.catchAll((e) =>
        Effect.suspend(() => {
          const now = Date.now();
          degradedSince ??= now;
          const warn = now - warnedAt >= degradedWarningMs;
          if (warn) warnedAt = now;
          return Effect.zipRight(
            Effect.zipRight(
              report(false, e.message),
              warn
                ? Effect.logWarning(`${e.message}; limiting per instance in memory until Redis answers`)
                : Effect.void,
            ),
            spend(local),
          );
        })
      ),
    );
  return {
    consume: (subject, tier, spend) => resilient((limiter) => limiter.consume(subject, tier, spend)),
    // only while Redis answers: a failure, and a return after one, take `consume` (which reports and falls back)
    ...(shared.consumeAsync
      ? {
        consumeAsync: (subject: string, tier: Tier, spend: Spend, now: number) =>
          degradedSince === undefined ? shared.consumeAsync!(subject, tier, spend, now) : undefined,
      }
      : {}),
    consumeSubmission: (subject, tier) => resilient((limiter) => limiter.consumeSubmission(subject, tier)),
    use: (subject) => resilient((limiter) => limiter.use(subject)),
  };
};

/** Counters live under `cds:<installation>:rl`, the installation being the service database's own id. */
export const RateLimiterRedis = (
  url: string,
  limits: Limits,
): Layer.Layer<RateLimiter, RateLimiterUnavailable, ServiceDatabase> =>
  Layer.scoped(
    RateLimiter,
    Effect.gen(function* () {
      const { sql } = yield* ServiceDatabase;
      const [installation] = yield* sql<{ uuid: string }>`select uuid::text as uuid from cds.installation`
        .pipe(
          Effect.mapError((e) => new RateLimiterUnavailable({ message: `service database: ${e.message}` })),
        );
      const { Redis } = yield* Effect.promise(() => import("ioredis"));
      const connect = Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const client = new Redis(url, {
              lazyConnect: true,
              maxRetriesPerRequest: 1,
              enableOfflineQueue: false,
              // reconnect soon after an outage so the shared budgets come back quickly
              retryStrategy: (times) => Math.min(times * 100, 1_000),
            });
            client.on("error", () => {});
            try {
              await client.connect();
              await client.ping();
            } catch (cause) {
              client.disconnect();
              throw cause;
            }
            return client;
          },
          catch: (cause) =>
            new RateLimiterUnavailable({
              message: `cannot connect to Redis: ${cause instanceof Error ? cause.message : String(cause)}`,
            }),
        }),
        (client) => Effect.promise(() => client.quit().catch(() => client.disconnect())),
      );
      const redis = yield* waitFor("redis", connect, { critical: false });
      const board = yield* Effect.serviceOption(Dependencies);
      const report = (healthy: boolean, error?: string) =>
        Effect.sync(() => Option.map(board, (b) => b.set("redis", healthy ? "ok" : "down", error)));
      return makeResilientRateLimiter(
        makeRedisRateLimiter(redis, limits, `cds:${installation!.uuid}:rl`),
        makeMemoryRateLimiter(limits, yield* readHistory),
        report,
      );
    }),
  );
