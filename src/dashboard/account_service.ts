/**
 * The account programs as the dashboard uses them: each answer turned into the pages' views (views.ts). The
 * only file here that knows the programs' shapes, so the handlers and pages stay as they are when those change.
 */
import { Effect, Either, Option } from "effect";
import type { AccountRecord } from "@layers/account_store.ts";
import type { AccountStore } from "@layers/account_store.ts";
import type { AttemptThrottle } from "@layers/attempt_throttle.ts";
import type { AppConfig } from "@layers/config.ts";
import type { KeyRecord } from "@layers/key_store.ts";
import { Mailer } from "@layers/mailer.ts";
import { mayCreate } from "@src/domain/key_policy.ts";
import { changePassword } from "@src/programs/accounts/change_password.ts";
import { confirmEmail } from "@src/programs/accounts/confirm_email.ts";
import { createKey } from "@src/programs/accounts/create_key.ts";
import { deleteAccount } from "@src/programs/accounts/delete_account.ts";
import { listKeys } from "@src/programs/accounts/list_keys.ts";
import { logIn } from "@src/programs/accounts/log_in.ts";
import { logOut } from "@src/programs/accounts/log_out.ts";
import { ownKey } from "@src/programs/accounts/own_key.ts";
import { renameKey } from "@src/programs/accounts/rename_key.ts";
import { requestPasswordReset } from "@src/programs/accounts/request_password_reset.ts";
import { resetPassword } from "@src/programs/accounts/reset_password.ts";
import { revokeKey } from "@src/programs/accounts/revoke_key.ts";
import { rotateKey } from "@src/programs/accounts/rotate_key.ts";
import { sessionOf } from "@src/programs/accounts/session_of.ts";
import { setKeyActive } from "@src/programs/accounts/set_key_active.ts";
import { signUp } from "@src/programs/accounts/sign_up.ts";
import { signUpByMail } from "@src/programs/accounts/sign_up_by_mail.ts";
import { usageReport } from "@src/programs/accounts/usage_report.ts";
import type { DashboardFailure } from "./failures.ts";
import type { AccountView, KeyView, Tier, UsageView } from "./views.ts";

export interface SessionInfo {
  readonly accountId: number;
  readonly account: AccountView;
  readonly csrfToken: string;
}

export interface NewSession {
  readonly secret: string;
  readonly expiresAt: Date;
  /** The browser's device token (its cookie): failures it brings count against it, not the account. */
  readonly deviceToken: string;
}

export interface SecretOnce {
  readonly secret: string;
  readonly key: KeyView;
}

export interface KeyInput {
  readonly name: string;
  readonly tier: Tier;
  readonly networks: ReadonlyArray<string>;
  readonly families: ReadonlyArray<string>;
  readonly expiresAt: Date | null;
}

type Fx<A, R> = Effect.Effect<A, DashboardFailure, R>;

export interface DashboardAccounts<R> {
  /** Whether account mails are sent (SMTP configured): sign-up then asks for confirmation. */
  readonly mailSends: Effect.Effect<boolean, never, R>;
  /**
   * Without mail: the account, logged-in next, and its key (`created`). With mail: only the address, the same
   * whether it had an account already or not (the key comes with the confirmation).
   */
  readonly signUp: (
    email: string,
    password: string,
    clientAddress: string,
  ) => Fx<
    { readonly email: string; readonly created: SecretOnce & { readonly session?: NewSession } | undefined },
    R
  >;
  readonly logIn: (
    email: string,
    password: string,
    clientAddress: string,
    deviceToken: string | undefined,
  ) => Fx<NewSession, R>;
  readonly sessionOf: (secret: string) => Fx<Option.Option<SessionInfo>, R>;
  readonly logOut: (secret: string) => Fx<void, R>;
  readonly requestPasswordReset: (email: string) => Fx<void, R>;
  readonly resetPassword: (token: string, password: string) => Fx<void, R>;
  /** The account's first key when the confirmation made it (accounts signed up by mail). */
  readonly confirmEmail: (token: string) => Fx<SecretOnce | undefined, R>;
  /** Ends the account's other sessions; `keepSession` (the one asking) stays. */
  readonly changePassword: (
    accountId: number,
    current: string,
    next: string,
    keepSession: string,
  ) => Fx<void, R>;
  readonly deleteAccount: (accountId: number, password: string) => Fx<void, R>;
  readonly listKeys: (accountId: number) => Fx<ReadonlyArray<KeyView>, R>;
  readonly getKey: (accountId: number, keyId: number) => Fx<KeyView, R>;
  readonly createKey: (accountId: number, input: KeyInput) => Fx<SecretOnce, R>;
  readonly renameKey: (accountId: number, keyId: number, name: string) => Fx<void, R>;
  readonly rotateKey: (accountId: number, keyId: number) => Fx<SecretOnce, R>;
  readonly setKeyActive: (accountId: number, keyId: number, active: boolean) => Fx<void, R>;
  readonly revokeKey: (accountId: number, keyId: number) => Fx<void, R>;
  readonly usage: (accountId: number, keyId?: number) => Fx<UsageView, R>;
  /** keyPolicy's refusal of a PAID key on this plan; undefined when allowed. */
  readonly paidForbidden: (plan: Tier) => string | undefined;
}

/** What the account programs need from the application's layers. */
export type AccountServices = AccountStore | AttemptThrottle | Mailer | AppConfig;

const keyViewOf = (k: KeyRecord): KeyView => ({
  id: k.id,
  name: k.name,
  tier: k.tier,
  status: k.status,
  hint: k.hint,
  createdAt: k.createdAt,
  lastUsedAt: k.lastUsedAt,
  expiresAt: k.expiresAt,
  networks: k.permissions.networks,
  families: k.permissions.families,
});

const accountViewOf = (a: Omit<AccountRecord, "passwordHash">): AccountView => ({
  email: a.email ?? a.name,
  plan: a.plan,
  createdAt: a.createdAt,
  credits: a.credits,
});

const sum = (ns: ReadonlyArray<number>) => ns.reduce((a, b) => a + b, 0);

/**
 * The report's days and keys as the pages' figures; the quota left is that of the budgets the live keys spend:
 * the FREE budget the account's FREE keys share, once, and each other key's own.
 */
const usageViewOf = (report: Effect.Effect.Success<ReturnType<typeof usageReport>>): UsageView => {
  const live = report.keys.filter((k) => k.status !== "revoked");
  const shared = live.some((k) => k.sharesBudget) ? report.sharedBudget : null;
  const budgets = [
    ...live.filter((k) => !k.sharesBudget).map((k) => k.quotaLeftToday),
    ...(shared ? [shared.quotaLeftToday] : []),
  ];
  return {
    days: report.days.map((d) => d.day),
    points: report.days.flatMap((d) =>
      Object.entries(d.requests).map(([family, requests]) => ({ day: d.day, family, requests }))
    ),
    requestsToday: sum(report.keys.map((k) => k.requestsToday)),
    quotaLeftToday: budgets.length === 0
      ? 0
      : budgets.some((q) => q === null)
      ? null
      : sum(budgets.map((q) => q ?? 0)),
    sharedBy: shared?.keys ?? null,
    submissionsLastHour: sum(report.keys.map((k) => k.submissionsLastHour)),
    rateLimited: sum(report.days.map((d) => d.rateLimited)),
  };
};

export const dashboardAccounts: DashboardAccounts<AccountServices> = {
  mailSends: Effect.map(Mailer, (m) => m.enabled),
  signUp: (email, password, clientAddress) =>
    Effect.flatMap(Mailer, (mailer) => {
      type Answer = {
        readonly email: string;
        readonly created: SecretOnce & { readonly session?: NewSession } | undefined;
      };
      const byMail: Fx<Answer, AccountServices> = Effect.map(
        signUpByMail({ email, password, clientAddress }),
        (r) => ({ email: r.email, created: undefined }),
      );
      const atOnce: Fx<Answer, AccountServices> = Effect.map(
        signUp({ email, password, clientAddress }),
        (r) => ({
          email: r.account.email ?? email,
          created: {
            secret: r.key.secret,
            key: keyViewOf(r.key.record),
            session: { secret: r.session.secret, expiresAt: r.session.expiresAt, deviceToken: r.deviceToken },
          },
        }),
      );
      return mailer.enabled ? byMail : atOnce;
    }),
  logIn: (email, password, clientAddress, deviceToken) =>
    Effect.map(logIn({ email, password, clientAddress, deviceToken }), (r) => ({
      secret: r.session.secret,
      expiresAt: r.session.expiresAt,
      deviceToken: r.deviceToken,
    })),
  sessionOf: (secret) =>
    Effect.map(
      sessionOf(secret),
      Option.map(({ account, session }) => ({
        accountId: account.id,
        account: accountViewOf(account),
        csrfToken: session.csrfToken,
      })),
    ),
  logOut: (secret) => logOut(secret),
  requestPasswordReset: (email) => requestPasswordReset(email),
  resetPassword: (token, password) => resetPassword(token, password),
  confirmEmail: (token) =>
    Effect.map(confirmEmail(token), (r) => r.key && { secret: r.key.secret, key: keyViewOf(r.key.record) }),
  changePassword: (accountId, current, next, keepSession) =>
    changePassword(accountId, current, next, keepSession),
  deleteAccount: (accountId, password) => deleteAccount(accountId, password),
  listKeys: (accountId) => Effect.map(listKeys(accountId), (keys) => keys.map(keyViewOf)),
  getKey: (accountId, keyId) => Effect.map(ownKey(accountId, keyId), keyViewOf),
  createKey: (accountId, input) =>
    Effect.map(
      createKey(accountId, {
        name: input.name,
        tier: input.tier,
        permissions: { networks: input.networks, families: input.families },
        expiresAt: input.expiresAt,
      }),
      (r) => ({ secret: r.secret, key: keyViewOf(r.record) }),
    ),
  renameKey: (accountId, keyId, name) => renameKey(accountId, keyId, name),
  rotateKey: (accountId, keyId) =>
    Effect.flatMap(
      rotateKey(accountId, keyId),
      (r) => Effect.map(ownKey(accountId, keyId), (k) => ({ secret: r.secret, key: keyViewOf(k) })),
    ),
  setKeyActive: (accountId, keyId, active) => setKeyActive(accountId, keyId, active),
  revokeKey: (accountId, keyId) => revokeKey(accountId, keyId),
  usage: (accountId, keyId) => Effect.map(usageReport(accountId, keyId), usageViewOf),
  paidForbidden: (plan) =>
    Either.match(mayCreate(plan, "PAID"), { onLeft: (e) => e.message, onRight: () => undefined }),
};
