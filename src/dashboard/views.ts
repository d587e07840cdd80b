/**
 * What the pages show, in the pages' own terms: the handlers turn the account programs' answers into these, so
 * rendering stays pure and the pages can be read (and tested) without a database.
 */
import { keyFamilies, permissionFamilyTable } from "@src/domain/families.ts";
import type { UsagePoint } from "./usage_chart.ts";

export type Tier = "FREE" | "PAID";
export type KeyStatusView = "active" | "inactive" | "revoked";

export interface KeyView {
  readonly id: number;
  readonly name: string;
  readonly tier: Tier;
  readonly status: KeyStatusView;
  readonly hint: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly expiresAt: Date | null;
  /** Empty = every network / every family. */
  readonly networks: ReadonlyArray<string>;
  readonly families: ReadonlyArray<string>;
}

export interface UsageView {
  readonly days: ReadonlyArray<string>;
  readonly points: ReadonlyArray<UsagePoint>;
  readonly requestsToday: number;
  /** Requests left today under the daily quota (a shared FREE budget counted once); null = no daily limit. */
  readonly quotaLeftToday: number | null;
  /** When the figures include the account's shared FREE budget: how many active FREE keys share it. */
  readonly sharedBy: number | null;
  readonly submissionsLastHour: number;
  /** 429 answers over the days shown. */
  readonly rateLimited: number;
}

export interface AccountView {
  readonly email: string;
  readonly plan: Tier;
  readonly createdAt: Date;
  /** Credits left on a PAID account; null = unlimited (or not applicable). */
  readonly credits: number | null;
}

export const allNetworks = ["mainnet", "preprod"] as const;
/** The permission families, in the order the new-key form offers them (src/domain/families.ts). */
export const allFamilies = keyFamilies;

/** How the dashboard names a permission family. */
export const familyNames: Readonly<Record<string, string>> = Object.fromEntries(
  keyFamilies.map((f) => [f, permissionFamilyTable[f].title]),
);
