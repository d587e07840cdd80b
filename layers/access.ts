/**
 * `Access`: the one gate every protected request passes (spec: Authentication, Errors, Limits). It resolves the
 * key through a cache, without a database read per request: a key change drops the key from every instance's
 * cache at once when announced on Redis (key_changes.ts), and a poll of the key store's change counter clears
 * the whole cache when it moved (every 250 ms, with Redis too: a change written by a process that announces
 * nothing is still honoured within a second), checks status and expiry, spends the key's
 * rate budgets (its account's, for the FREE keys of a person's account: src/domain/budget_subject.ts) and counts
 * usage. It also holds a key to its permissions (networks and families: 403 naming what
 * the key lacks), its account's state (disabled: 403) and its account's prepaid credits (401 `Insufficient
 * credits` when spent; see usage.ts for how instances share them). Refusals carry the spec's status, message and
 * rate-limit headers. Unknown keys
 * are remembered as unknown for a few seconds in a cache of their own (so random keys neither cost a read each
 * when repeated nor push known keys out), and open connections can `watch` their key to end when it is revoked.
 */
import { Clock, Context, Data, Effect, Layer, Option, Runtime, Schedule } from "effect";
import { looksLikeApiKey } from "@src/domain/api_key.ts";
import type { KeyFamily } from "@src/domain/accounts.ts";
import { type UsageFamilySpec, usageFamilyTable } from "@src/domain/families.ts";
import type { DatabaseUnavailable } from "@src/domain/errors.ts";
import { permissionRefusal } from "@src/domain/key_policy.ts";
import type { Network } from "@schemas/network.ts";
import { KeyChanges } from "./key_changes.ts";
import { type KeyRecord, KeyStore } from "./key_store.ts";
import { Metrics, type MetricsShape } from "./metrics.ts";
import {
  type BudgetUse,
  type LimitDecision,
  RateLimiter,
  type RateLimiterUnavailable,
  type Spend,
} from "./rate_limiter.ts";
import { type Family, Usage } from "./usage.ts";

export interface Grant {
  readonly key: KeyRecord;
  /**
   * Undefined when the limiter could not decide (the Redis limiter falls back to per-instance budgets itself, so
   * this is only a last resort: served, and logged).
   */
  readonly limit: LimitDecision | undefined;
  /** When it was granted (milliseconds): the day its request was counted in. */
  readonly at: number;
}

export class AccessDenied extends Data.TaggedError("AccessDenied")<{
  readonly status: 401 | 403 | 429;
  readonly message: string;
  readonly limit?: LimitDecision;
}> {}

export interface AccessShape {
  /** `network`: the network the request concerns (undefined for those that concern none, as the price). */
  readonly authorize: (
    secret: string | undefined,
    family: Family,
    spend: Spend,
    network?: Network,
  ) => Effect.Effect<Grant, AccessDenied | DatabaseUnavailable>;
  /**
   * The same decision without I/O, when the key is cached and the limiter is in memory: the request fast path.
   * Undefined means "take the `authorize` path".
   */
  readonly authorizeNow: (
    secret: string | undefined,
    family: Family,
    spend: Spend,
    now: number,
    network?: Network,
  ) => Grant | AccessDenied | undefined;
  /**
   * The same decision over the limiter's Promise path (Redis: one round trip, no fiber), when the key is cached
   * and the limiter offers that path now. Undefined means "take the `authorize` path"; so does a rejection (the
   * limiter could not decide; `authorize` falls back as it does).
   */
  readonly authorizeAsync: (
    secret: string | undefined,
    family: Family,
    spend: Spend,
    now: number,
    network?: Network,
  ) => Promise<Grant | AccessDenied> | undefined;
  /** Whether the key store's answer for `secret` is cached (known, or known to be unknown): no read needed. */
  readonly isCached: (secret: string | undefined, now: number) => boolean;
  /**
   * A granted JSON-RPC request over HTTP whose body says it is a submission: checks the key may submit and spends
   * the hourly submission budget alone (the grant already spent the request's rate, quota and credit). A
   * refusal is counted as refused instead of served.
   */
  readonly spendSubmission: (grant: Grant, network: Network) => Effect.Effect<void, AccessDenied>;
  /**
   * What the key's budget (shared by its account's FREE keys, or its own) has spent today and in the last hour;
   * undefined when the limiter cannot say.
   */
  readonly budgetUse: (key: KeyRecord) => Effect.Effect<BudgetUse | undefined>;
  /** The same without I/O, when the limiter is in memory; absent otherwise (take `budgetUse`). */
  readonly budgetUseNow?: (key: KeyRecord, now: number) => BudgetUse;
  /** Spends one unit of a key's rate without refusing anything: messages the service sends on a WebSocket. */
  readonly charge: (key: KeyRecord) => Effect.Effect<void>;
  /** The same without I/O, when the limiter is in memory; absent otherwise (take `charge`). */
  readonly chargeNow?: (key: KeyRecord, now: number) => void;
  /**
   * Calls `onRefused` once when the key stops being valid (revoked, deactivated, expired, rotated away), checked
   * at every poll, so within a second of the change; returns the function that stops watching.
   */
  readonly watch: (secret: string, onRefused: (denied: AccessDenied) => void) => () => void;
}

export class Access extends Context.Tag("Access")<Access, AccessShape>() {}

export const rateLimitMessage = "Rate limit exceeded. Please slow down.";

export const insufficientCredits = "Insufficient credits";

export const keyRequired = "API key required";

/** The key families a request needs (src/domain/families.ts): a submission may need more than a read. */
export const keyFamiliesOf = (family: Family, spend: Spend): ReadonlyArray<KeyFamily> => {
  const spec: UsageFamilySpec = usageFamilyTable[family];
  return spend === "submission" && spec.submissionNeeds !== undefined ? spec.submissionNeeds : spec.needs;
};

const refusal = (d: LimitDecision, tier: string): string =>
  d.exceeded === "daily"
    ? `Daily request limit exceeded for the ${tier} tier; it resets at 00:00 UTC`
    : d.exceeded === "submissions"
    ? `Transaction submission limit exceeded for the ${tier} tier; try again in ${
      Math.ceil(d.resetMs / 1000)
    } s`
    : rateLimitMessage;

/** Bounded so random keys cannot grow memory without end (the oldest entry leaves first). */
const cacheLimit = 10_000;
/** How long a key is remembered as unknown (a key created meanwhile clears it sooner, through the poll). */
const unknownForMs = 5_000;

/** Sets an entry, dropping the oldest one when the map is full (Maps iterate in insertion order). */
const setBounded = <V>(map: Map<string, V>, key: string, value: V) => {
  map.delete(key);
  if (map.size >= cacheLimit) map.delete(map.keys().next().value!);
  map.set(key, value);
};

/** 429s by the budget that refused them; the router counts its own (`auth_failures`) here too. */
export const rateLimitedCounter = (metrics: MetricsShape) =>
  metrics.counter(
    "cds_rate_limited_total",
    "Requests refused with 429, by the budget that refused them (auth_failures: the address's failed keys).",
    ["budget"],
  );

/** How often the key store's change counter is read: alone, or behind announcements on Redis. */
export const keyPollMs = { alone: 250, behindRedis: 250 } as const;

type AccessNeeds = KeyStore | KeyChanges | RateLimiter | Usage;

export const AccessLive: Layer.Layer<Access, never, AccessNeeds> = Layer.scoped(
  Access,
  Effect.gen(function* () {
    const store = yield* KeyStore;
    const limiter = yield* RateLimiter;
    const usage = yield* Usage;
    // counted where refusals are decided (the router, the Ogmios submissions), when the app has metrics
    const metrics = Option.getOrUndefined(yield* Effect.serviceOption(Metrics));
    const rateLimited = metrics && rateLimitedCounter(metrics);
    const authFailed = metrics?.counter(
      "cds_auth_failures_total",
      "Requests refused for their key: 401 (missing, unknown, revoked, expired), 403 (inactive).",
      ["status"],
    );
    const counted = (denied: AccessDenied): AccessDenied => {
      if (denied.status === 429) rateLimited?.labels(denied.limit?.exceeded ?? "rate").inc();
      else authFailed?.labels(denied.status).inc();
      return denied;
    };
    const known = new Map<string, KeyRecord>();
    /** Secrets no key has, with when that answer expires. */
    const unknown = new Map<string, number>();
    const watchers = new Map<string, Set<(denied: AccessDenied) => void>>();
    /** Moves whenever the caches are cleared, so a read that started before a key change is not remembered. */
    let epoch = 0;
    /** The cached answer: a record, null for a key known not to exist, undefined when a read must decide. */
    const cached = (secret: string, now: number): KeyRecord | null | undefined => {
      const record = known.get(secret);
      if (record) return record;
      const until = unknown.get(secret);
      if (until === undefined) return undefined;
      if (until > now) return null;
      unknown.delete(secret);
      return undefined;
    };
    const remember = (secret: string, record: KeyRecord | null, now: number) => {
      if (record) {
        unknown.delete(secret);
        setBounded(known, secret, record);
      } else {
        known.delete(secret);
        setBounded(unknown, secret, now + unknownForMs);
      }
    };

    const lookup = (secret: string) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis;
        const hit = cached(secret, now);
        if (hit !== undefined) return hit;
        const started = epoch;
        const record = Option.getOrNull(yield* store.findBySecret(secret));
        if (started === epoch) {
          remember(secret, record, now);
          if (record) usage.observeCredits(record.accountId, record.credits);
        }
        return record;
      });

    /** Status and expiry of a resolved key: a refusal, or undefined when the key may proceed. */
    const keyRefusal = (secret: string | undefined, key: KeyRecord | null | undefined, now: number) => {
      if (secret === undefined || secret === "") {
        return new AccessDenied({ status: 401, message: keyRequired });
      }
      if (key === null || key === undefined) {
        return new AccessDenied({ status: 401, message: "Invalid API key" });
      }
      if (key.status === "revoked") return new AccessDenied({ status: 401, message: "Key revoked" });
      if (key.expiresAt !== null && key.expiresAt.getTime() <= now) {
        return new AccessDenied({ status: 401, message: "API key expired" });
      }
      if (key.status === "inactive") {
        return new AccessDenied({ status: 403, message: "API key is inactive" });
      }
      if (key.accountDisabled) {
        return new AccessDenied({ status: 403, message: "This key's account is disabled" });
      }
      return undefined;
    };

    /** Permissions and credits: a refusal, or undefined when the request may spend its budgets. */
    const requestRefusal = (key: KeyRecord, family: Family, spend: Spend, network: Network | undefined) => {
      const lacks = permissionRefusal(key.permissions, network, keyFamiliesOf(family, spend));
      if (lacks !== undefined) return new AccessDenied({ status: 403, message: lacks });
      if (key.credits !== null && !usage.hasCredit(key.accountId, key.credits)) {
        return new AccessDenied({ status: 401, message: insufficientCredits });
      }
      return undefined;
    };

    /** After the limiter spoke: a refusal, or the grant with usage counted. */
    const settle = (
      key: KeyRecord,
      family: Family,
      spend: Spend,
      limit: LimitDecision | undefined,
      now: number,
    ) => {
      if (limit && !limit.allowed) {
        usage.recordRefused(key.id, family, now);
        return new AccessDenied({ status: 429, message: refusal(limit, key.tier), limit });
      }
      if (key.credits !== null && !usage.spendCredit(key.accountId, key.credits)) {
        return new AccessDenied({ status: 401, message: insufficientCredits });
      }
      usage.record(key.id, family, now);
      if (spend === "submission") usage.recordSubmission(key.id, now);
      return { key, limit, at: now } satisfies Grant;
    };

    /** A limiter that cannot decide serves the request, logged (undefined: no decision). */
    const orUnlimited = (decision: Effect.Effect<LimitDecision, RateLimiterUnavailable>) =>
      decision.pipe(
        Effect.tapError((e) =>
          Effect.logWarning(`rate limiter unavailable, serving unlimited: ${e.message}`)
        ),
        Effect.option,
        Effect.map(Option.getOrUndefined),
      );

    const authorizeNow: AccessShape["authorizeNow"] = (secret, family, spend, now, network) => {
      const key = secret && looksLikeApiKey(secret) ? cached(secret, now) : null;
      if (key === undefined) return undefined;
      const refused = keyRefusal(secret, key, now) ?? requestRefusal(key!, family, spend, network);
      if (refused) return counted(refused);
      if (!limiter.consumeNow) return undefined;
      const outcome = settle(
        key!,
        family,
        spend,
        limiter.consumeNow(key!.budget, key!.tier, spend, now),
        now,
      );
      return outcome instanceof AccessDenied ? counted(outcome) : outcome;
    };

    const authorizeAsync: AccessShape["authorizeAsync"] = (secret, family, spend, now, network) => {
      const key = secret && looksLikeApiKey(secret) ? cached(secret, now) : null;
      if (key === undefined) return undefined;
      const refused = keyRefusal(secret, key, now) ?? requestRefusal(key!, family, spend, network);
      if (refused) return Promise.resolve(counted(refused));
      return limiter.consumeAsync?.(key!.budget, key!.tier, spend, now)?.then((limit) => {
        const outcome = settle(key!, family, spend, limit, now);
        return outcome instanceof AccessDenied ? counted(outcome) : outcome;
      });
    };

    const authorize: AccessShape["authorize"] = (secret, family, spend, network) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis;
        const key = secret && looksLikeApiKey(secret) ? yield* lookup(secret) : null;
        const refused = keyRefusal(secret, key, now) ?? requestRefusal(key!, family, spend, network);
        if (refused) return yield* counted(refused);
        const limit = yield* orUnlimited(limiter.consume(key!.budget, key!.tier, spend));
        const outcome = settle(key!, family, spend, limit, now);
        return outcome instanceof AccessDenied ? yield* counted(outcome) : outcome;
      });

    const spendSubmission: AccessShape["spendSubmission"] = ({ key, at }, network) =>
      Effect.gen(function* () {
        const lacks = permissionRefusal(key.permissions, network, keyFamiliesOf("ogmios", "submission"));
        if (lacks !== undefined) return yield* counted(new AccessDenied({ status: 403, message: lacks }));
        const limit = yield* orUnlimited(limiter.consumeSubmission(key.budget, key.tier));
        const now = yield* Clock.currentTimeMillis;
        if (limit && !limit.allowed) {
          usage.recordRefusedInstead(key.id, "ogmios", at, now);
          return yield* counted(
            new AccessDenied({ status: 429, message: refusal(limit, key.tier), limit }),
          );
        }
        usage.recordSubmission(key.id, now);
      });

    const budgetUse: AccessShape["budgetUse"] = (key) =>
      limiter.use(key.budget).pipe(Effect.option, Effect.map(Option.getOrUndefined));

    const useNow = limiter.useNow;
    const budgetUseNow: AccessShape["budgetUseNow"] = useNow && ((key, now) => useNow(key.budget, now));

    const consumeNow = limiter.consumeNow;
    const chargeNow: AccessShape["chargeNow"] = consumeNow &&
      ((key, now) => void consumeNow(key.budget, key.tier, "request", now));

    const charge: AccessShape["charge"] = (key) =>
      limiter.consumeNow
        ? Effect.map(
          Clock.currentTimeMillis,
          (now) => void limiter.consumeNow!(key.budget, key.tier, "request", now),
        )
        : Effect.ignore(limiter.consume(key.budget, key.tier, "request"));

    /**
     * Tells the watchers of keys that stopped being valid, once. A watched key is read again after the poll
     * cleared the caches (one read per watched key per change); a key store that cannot answer ends nothing.
     */
    const checkWatched = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis;
      for (const [secret, listeners] of [...watchers]) {
        const key = yield* Effect.orElseSucceed(lookup(secret), () => undefined);
        if (key === undefined) continue;
        const refused = keyRefusal(secret, key, now);
        if (!refused) continue;
        watchers.delete(secret);
        for (const listener of listeners) listener(refused);
      }
    });

    let generation = yield* Effect.orElseSucceed(store.generation, () => -1);
    const poll = Effect.flatMap(Effect.either(store.generation), (g) => {
      const changed = g._tag === "Right" && g.right !== generation;
      if (changed) {
        generation = g.right;
        epoch++;
        known.clear();
        unknown.clear();
      }
      return watchers.size > 0 ? checkWatched : Effect.void;
    });
    const changes = yield* KeyChanges;
    const pollMs = changes.shared ? keyPollMs.behindRedis : keyPollMs.alone;
    yield* Effect.forkScoped(Effect.repeat(poll, Schedule.spaced(pollMs)));
    // a key's expiry is a change nobody announces: watched keys are checked as often as without Redis (from the
    // cache, no read unless a change dropped them)
    if (changes.shared) {
      const watched = Effect.suspend(() => (watchers.size > 0 ? checkWatched : Effect.void));
      yield* Effect.forkScoped(Effect.repeat(watched, Schedule.spaced(keyPollMs.alone)));
    }

    // an announced change drops that key (or account's keys, or all); unknown keys may have just been created
    const runtime = yield* Effect.runtime<never>();
    yield* changes.subscribe((change) => {
      epoch++;
      unknown.clear();
      if (change.keyId === undefined && change.accountId === undefined) known.clear();
      else {
        for (const [secret, record] of known) {
          if (record.id === change.keyId || record.accountId === change.accountId) known.delete(secret);
        }
      }
      if (watchers.size > 0) Runtime.runFork(runtime)(checkWatched);
    });

    const watch: AccessShape["watch"] = (secret, onRefused) => {
      let listeners = watchers.get(secret);
      if (!listeners) watchers.set(secret, listeners = new Set());
      listeners.add(onRefused);
      return () => {
        listeners.delete(onRefused);
        if (listeners.size === 0 && watchers.get(secret) === listeners) watchers.delete(secret);
      };
    };

    const isCached: AccessShape["isCached"] = (secret, now) =>
      !secret || !looksLikeApiKey(secret) || cached(secret, now) !== undefined;

    return {
      authorize,
      authorizeNow,
      authorizeAsync,
      isCached,
      spendSubmission,
      budgetUse,
      ...(budgetUseNow ? { budgetUseNow } : {}),
      ...(chargeNow ? { chargeNow } : {}),
      charge,
      watch,
    };
  }),
);
