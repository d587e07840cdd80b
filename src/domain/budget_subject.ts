/**
 * Whose budgets a request spends (rate per second, GraphQL rate, daily quota, submissions per hour). The FREE
 * keys of a person's account (one with an email address: a sign-up) share one set of FREE budgets, so making
 * more keys never makes more requests; PAID keys, and the keys of the operator's own accounts (made by the keys
 * CLI, without an email address), each keep their own.
 */
import type { Plan } from "./accounts.ts";

export interface BudgetHolder {
  readonly id: number;
  readonly tier: Plan;
  readonly accountId: number;
  /** The account is a person's (it has an email address), not one of the operator's. */
  readonly personalAccount: boolean;
}

/** The limiter's name for the budget: `account:<id>` when shared, the key's id otherwise. */
export const budgetSubject = (key: BudgetHolder): string =>
  sharesAccountBudget(key) ? `account:${key.accountId}` : `${key.id}`;

export const sharesAccountBudget = (key: BudgetHolder): boolean => key.tier === "FREE" && key.personalAccount;
