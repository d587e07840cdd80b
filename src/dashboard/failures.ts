/**
 * What a dashboard request may fail with, and what each failure shows: the form again with the reason (and the
 * field it is about), a page of its own, or the log-in page. Programs fail with the tagged errors of
 * src/domain/account_errors.ts and src/domain/errors.ts; only `describe` knows statuses and wording.
 */
import { Match } from "effect";
import type {
  AccountDisabled,
  EmailTaken,
  EmailUnconfirmed,
  InvalidCredentials,
  InvalidEmail,
  InvalidKeyRequest,
  KeyLimitReached,
  LoginThrottled,
  PasswordHashBusy,
  PlanForbids,
  SessionInvalid,
  TokenInvalid,
  WeakPassword,
} from "@src/domain/account_errors.ts";
import type { DatabaseUnavailable, NotFoundError } from "@src/domain/errors.ts";
import { Data } from "effect";
import type { BadForm } from "./form_body.ts";
import { messagePage } from "./pages/auth_pages.ts";
import { seeOther } from "./page.ts";

/** The form's token or the browser's Origin did not hold (csrf.ts). */
export class CsrfRefused extends Data.TaggedError("CsrfRefused") {}

export type DashboardFailure =
  | InvalidEmail
  | WeakPassword
  | EmailTaken
  | InvalidCredentials
  | LoginThrottled
  | PasswordHashBusy
  | AccountDisabled
  | EmailUnconfirmed
  | PlanForbids
  | InvalidKeyRequest
  | KeyLimitReached
  | TokenInvalid
  | SessionInvalid
  | NotFoundError
  | DatabaseUnavailable
  | BadForm
  | CsrfRefused;

/** A refusal the form shows above itself; `field` is the form field it concerns. */
export interface FormRefusal {
  readonly status: number;
  readonly message: string;
  readonly field?: string;
  readonly headers?: Record<string, string>;
}

export type Shown =
  | ({ readonly kind: "form" } & FormRefusal)
  | {
    readonly kind: "page";
    readonly status: number;
    readonly title: string;
    readonly message: string;
    readonly link?: { readonly href: string; readonly text: string };
    readonly headers?: Record<string, string>;
  }
  | { readonly kind: "login" };

const minutes = (seconds: number) =>
  seconds < 90 ? `${Math.max(1, Math.ceil(seconds))} seconds` : `${Math.ceil(seconds / 60)} minutes`;

/** The key programs name `expiresAt`; the form's field is `expires`. */
const keyField = (field: string) => field === "expiresAt" ? "expires" : field;
const fieldNames: Readonly<Record<string, string>> = {
  name: "Name",
  tier: "Tier",
  networks: "Networks",
  families: "APIs",
  expires: "Expiry",
};

export const describe = (failure: DashboardFailure): Shown =>
  Match.value(failure).pipe(
    Match.tagsExhaustive({
      InvalidEmail: (e) => ({
        kind: "form" as const,
        status: 400,
        field: "email",
        message: `That e-mail address cannot be used: ${e.reason}.`,
      }),
      WeakPassword: (e) => ({
        kind: "form" as const,
        status: 400,
        field: "password",
        message: `${e.reason}.`,
      }),
      EmailTaken: () => ({
        kind: "form" as const,
        status: 409,
        field: "email",
        message: "An account with this e-mail address exists already. Log in, or reset its password.",
      }),
      InvalidCredentials: () => ({
        kind: "form" as const,
        status: 401,
        field: "password",
        message: "Wrong e-mail address or password.",
      }),
      LoginThrottled: (e) => ({
        kind: "form" as const,
        status: 429,
        message: `Too many attempts in a short time: to protect accounts, we are pausing them for a while. ` +
          `Please try again in ${minutes(e.retryAfterSeconds)}.`,
        headers: { "retry-after": String(Math.max(1, Math.ceil(e.retryAfterSeconds))) },
      }),
      PasswordHashBusy: (e) => ({
        kind: "form" as const,
        status: 503,
        message: `Too many people are logging in or signing up at this moment, so nothing was checked or ` +
          `changed. Please try again in a few seconds.`,
        headers: { "retry-after": String(Math.max(1, Math.ceil(e.retryAfterSeconds))) },
      }),
      AccountDisabled: () => ({
        kind: "form" as const,
        status: 403,
        message: "This account is disabled. Please contact the operator of this service.",
      }),
      EmailUnconfirmed: () => ({
        kind: "form" as const,
        status: 403,
        message: "Please confirm your e-mail address first: follow the link in the mail we sent you.",
      }),
      PlanForbids: (e) => ({ kind: "form" as const, status: 403, field: "tier", message: `${e.message}.` }),
      InvalidKeyRequest: (e) => ({
        kind: "form" as const,
        status: 400,
        field: keyField(e.field),
        message: `${fieldNames[keyField(e.field)] ?? e.field}: ${e.reason}.`,
      }),
      KeyLimitReached: (e) => ({
        kind: "form" as const,
        status: 409,
        message:
          `A FREE account holds at most ${e.limit} active keys, and all of them share one set of FREE ` +
          "limits: deactivate or revoke a key first.",
      }),
      TokenInvalid: () => ({
        kind: "page" as const,
        status: 400,
        title: "This link cannot be used",
        message: "The link is unknown, used already or expired. Ask for a new one.",
        link: { href: "/forgot-password", text: "Ask for a new password link" },
      }),
      SessionInvalid: () => ({ kind: "login" as const }),
      NotFoundError: () => ({
        kind: "page" as const,
        status: 404,
        title: "Not found",
        message: "There is no such key in your account.",
        link: { href: "/dashboard", text: "Back to your keys" },
      }),
      DatabaseUnavailable: () => ({
        kind: "page" as const,
        status: 503,
        title: "Try again shortly",
        message: "The service's database is unavailable at the moment. Please try again in a little while.",
        headers: { "retry-after": "5" },
      }),
      BadForm: (e) => ({
        kind: "page" as const,
        status: e.status,
        title: "The form could not be read",
        message: e.message,
        link: { href: "/dashboard", text: "Back to the dashboard" },
      }),
      CsrfRefused: () => ({
        kind: "page" as const,
        status: 403,
        title: "This form cannot be accepted",
        message:
          "It has expired or was not sent from this site's own page. Go back, reload the page and try again.",
        link: { href: "/dashboard", text: "Back to the dashboard" },
      }),
    }),
  );

/**
 * The answer for a failure: `rerender` draws the form that was posted with the refusal; without one (a GET, or
 * a form-less action) a refusal meant for a form becomes a page of its own.
 */
export const failureResponse = (
  failure: DashboardFailure,
  rerender?: (refusal: FormRefusal) => Response,
): Response => {
  const shown = describe(failure);
  switch (shown.kind) {
    case "login":
      return seeOther("/login");
    case "form":
      return rerender ? rerender(shown) : messagePage({
        title: "That did not work",
        message: shown.message,
        status: shown.status,
        headers: shown.headers,
        link: { href: "/dashboard", text: "Back to the dashboard" },
      });
    case "page":
      return messagePage(shown);
  }
};

/** A page's 400 for a request the router cannot read (a repeated query parameter). */
export const unreadableRequestPage = (message: string): Response =>
  messagePage({
    title: "This address cannot be read",
    message: `${message}.`,
    status: 400,
    link: { href: "/dashboard", text: "Back to the dashboard" },
  });
