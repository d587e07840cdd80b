/**
 * The account programs as the dashboard uses them: each answer turned into the pages' views (views.ts). The
 * only file here that knows the programs' shapes, so the handlers and pages stay as they are when those change.
 */
import type { Effect, Option } from "effect";
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
  readonly signUp: (email: string, password: string) => Fx<SecretOnce & { readonly email: string }, R>;
  readonly logIn: (email: string, password: string, clientAddress: string) => Fx<NewSession, R>;
  readonly sessionOf: (secret: string) => Fx<Option.Option<SessionInfo>, R>;
  readonly logOut: (secret: string) => Fx<void, R>;
  readonly requestPasswordReset: (email: string) => Fx<void, R>;
  readonly resetPassword: (token: string, password: string) => Fx<void, R>;
  readonly confirmEmail: (token: string) => Fx<void, R>;
  readonly changePassword: (accountId: number, current: string, next: string) => Fx<void, R>;
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
