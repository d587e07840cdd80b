/**
 * An account's usage (or one key's): requests per UTC day and family for the last 30 days (every day listed,
 * oldest first, zeros included, so a chart needs no gaps filled), 429s per day, and per key what is left of
 * today's quota and its submissions in the last hour. The FREE keys of a person's account share one budget
 * (src/domain/budget_subject.ts): their quota left is the account's, and `sharedBudget` gives its figures, all
 * those keys together. Figures lag the requests by at most a second (the usage flush).
 */
import { Effect } from "effect";
import { AccountStore } from "@layers/account_store.ts";
import { AppConfig } from "@layers/config.ts";
import { sharesAccountBudget } from "@src/domain/budget_subject.ts";
import { usageFamilies } from "@src/domain/families.ts";
import { ownKey } from "./own_key.ts";

export interface UsageDay {
  readonly day: string;
  readonly requests: Readonly<Record<string, number>>;
  readonly total: number;
  readonly rateLimited: number;
}

export interface KeyUsage {
  readonly keyId: number;
  readonly name: string;
  readonly tier: "FREE" | "PAID";
  readonly status: string;
  readonly requestsToday: number;
  /** Null when the tier has no daily quota. */
  readonly quotaLeftToday: number | null;
  readonly submissionsLastHour: number;
  /** Null when the tier has no hourly submission limit. */
  readonly submissionsPerHour: number | null;
  /** The key spends the account's shared FREE budget (its quota left is the account's). */
  readonly sharesBudget: boolean;
}

/** The one FREE budget the account's FREE keys share, all of them together. */
export interface SharedBudget {
  /** Its active (unexpired) keys. */
  readonly keys: number;
  readonly requestsToday: number;
  /** Null when the FREE tier has no daily quota. */
  readonly quotaLeftToday: number | null;
  readonly submissionsLastHour: number;
  /** Null when the FREE tier has no hourly submission limit. */
  readonly submissionsLeftThisHour: number | null;
}

const dayMs = 86_400_000;

export const usageReport = (accountId: number, keyId?: number) =>
  Effect.gen(function* () {
    const store = yield* AccountStore;
    const { limits } = yield* AppConfig;
    const all = yield* store.keys(accountId);
    const keys = keyId === undefined ? all : [yield* ownKey(accountId, keyId)];
    // the whole account's: a shared budget's figures need every key's
    const accountUsage = yield* store.usage(accountId);
    const usage = keyId === undefined ? accountUsage : {
      daily: accountUsage.daily.filter((r) => r.keyId === keyId),
      submissionsLastHour: accountUsage.submissionsLastHour,
    };
    const today = new Date(Date.now() - (Date.now() % dayMs));
    const days: Array<UsageDay> = [];
    for (let i = 29; i >= 0; i--) {
      const day = new Date(today.getTime() - i * dayMs).toISOString().slice(0, 10);
      const rows = usage.daily.filter((r) => r.day === day);
      const requests: Record<string, number> = Object.fromEntries(usageFamilies.map((f) => [f, 0]));
      for (const r of rows) requests[r.family] = (requests[r.family] ?? 0) + r.requests;
      days.push({
        day,
        requests,
        total: rows.reduce((n, r) => n + r.requests, 0),
        rateLimited: rows.reduce((n, r) => n + r.rateLimited, 0),
      });
    }
    const todayText = today.toISOString().slice(0, 10);
    const requestsTodayOf = (ids: ReadonlySet<number>) =>
      accountUsage.daily
        .filter((r) => ids.has(r.keyId) && r.day === todayText)
        .reduce((n, r) => n + r.requests, 0);
    const sharing = all.filter(sharesAccountBudget);
    const sharingIds = new Set(sharing.map((k) => k.id));
    const quota = limits.dailyRequests.FREE;
    const hourly = limits.submissionsPerHour.FREE;
    const sharedSubmissions = sharing.reduce(
      (n, k) => n + (accountUsage.submissionsLastHour.get(k.id) ?? 0),
      0,
    );
    const sharedRequests = requestsTodayOf(sharingIds);
    const sharedBudget: SharedBudget | null = sharing.length === 0 ? null : {
      keys: sharing.filter((k) => k.status === "active" && (k.expiresAt === null || k.expiresAt > new Date()))
        .length,
      requestsToday: sharedRequests,
      quotaLeftToday: quota > 0 ? Math.max(0, quota - sharedRequests) : null,
      submissionsLastHour: sharedSubmissions,
      submissionsLeftThisHour: hourly > 0 ? Math.max(0, hourly - sharedSubmissions) : null,
    };
    const perKey: Array<KeyUsage> = keys.map((k) => {
      const requestsToday = requestsTodayOf(new Set([k.id]));
      const shares = sharingIds.has(k.id);
      const quota = limits.dailyRequests[k.tier];
      const submissions = limits.submissionsPerHour[k.tier];
      return {
        keyId: k.id,
        name: k.name,
        tier: k.tier,
        status: k.status,
        requestsToday,
        quotaLeftToday: shares
          ? sharedBudget!.quotaLeftToday
          : quota > 0
          ? Math.max(0, quota - requestsToday)
          : null,
        submissionsLastHour: usage.submissionsLastHour.get(k.id) ?? 0,
        submissionsPerHour: submissions > 0 ? submissions : null,
        sharesBudget: shares,
      };
    });
    return { days, keys: perKey, sharedBudget };
  });
