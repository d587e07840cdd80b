/**
 * The pages before a session: sign-up, log-in, forgotten password, password reset, e-mail confirmation. Each
 * form carries the `cds_form` token (csrf.ts) and re-renders with the values typed so far (never the
 * password) and the reason it was refused.
 */
import { type Html, html } from "../html.ts";
import { pageResponse } from "../page.ts";

export interface FormState {
  readonly formToken: string;
  readonly email?: string;
  /** The refusal shown above the form, and the field it is about. */
  readonly error?: { readonly message: string; readonly field?: string };
  readonly notice?: string;
  readonly status?: number;
  readonly headers?: HeadersInit;
}

export const errorBox = (error: FormState["error"]): Html =>
  error ? html`<div class="error" role="alert" id="form-error">${error.message}</div>` : html``;

export const noticeBox = (notice: string | undefined): Html =>
  notice ? html`<div class="success" role="status">${notice}</div>` : html``;

const invalid = (s: FormState, field: string) => s.error?.field === field ? "true" : undefined;
const describedBy = (s: FormState, field: string, hint?: string) =>
  [hint, s.error?.field === field ? "form-error" : undefined].filter(Boolean).join(" ") || undefined;

const emailField = (s: FormState, autocomplete: string) =>
  html`<div><label for="email">E-mail address</label>
<input type="email" id="email" name="email" value="${
    s.email ?? ""
  }" required maxlength="254" autocomplete="${autocomplete}" aria-invalid="${
    invalid(s, "email")
  }" aria-describedby="${describedBy(s, "email")}"></div>`;

const passwordField = (s: FormState, id: string, label: string, autocomplete: string, hint?: string) =>
  html`<div><label for="${id}">${label}${
    hint ? html`<span class="hint" id="${id}-hint">${hint}</span>` : ""
  }</label>
<input type="password" id="${id}" name="${id}" required maxlength="1024" autocomplete="${autocomplete}" aria-invalid="${
    invalid(s, id)
  }" aria-describedby="${describedBy(s, id, hint ? `${id}-hint` : undefined)}"></div>`;

const token = (s: FormState) => html`<input type="hidden" name="csrf" value="${s.formToken}">`;

const respond = (title: string, body: Html, s: FormState) =>
  pageResponse({
    title,
    body,
    narrow: true,
    status: s.status,
    headers: s.headers,
    section: title === "Log in" ? "login" : title === "Sign up" ? "signup" : "none",
  });

export const signupPage = (s: FormState, mailConfirms: boolean): Response =>
  respond(
    "Sign up",
    html`<h1>Create an account</h1>
<p>An account comes with a FREE API key for mainnet and preprod, ready to use${
      mailConfirms ? " once you confirm your e-mail address" : ""
    }.</p>
${errorBox(s.error)}
<form class="stack" method="post" action="/signup">
${token(s)}
${emailField(s, "email")}
${
      passwordField(
        s,
        "password",
        "Password",
        "new-password",
        "At least 12 characters, not your e-mail address.",
      )
    }
<div><button type="submit">Create account</button></div>
</form>
<p>Already have an account? <a href="/login">Log in</a>.</p>`,
    s,
  );

export const loginPage = (s: FormState): Response =>
  respond(
    "Log in",
    html`<h1>Log in</h1>
${noticeBox(s.notice)}
${errorBox(s.error)}
<form class="stack" method="post" action="/login">
${token(s)}
${emailField(s, "username")}
${passwordField(s, "password", "Password", "current-password")}
<div><button type="submit">Log in</button></div>
</form>
<p><a href="/forgot-password">Forgot your password?</a> · No account yet? <a href="/signup">Sign up</a>.</p>`,
    s,
  );

export const forgotPasswordPage = (s: FormState, mailSends: boolean): Response =>
  respond(
    "Forgot password",
    html`<h1>Forgot your password?</h1>
${noticeBox(s.notice)}
${errorBox(s.error)}
${
      mailSends
        ? html`<p>Enter your account's e-mail address and we will send a link to choose a new password.</p>
<form class="stack" method="post" action="/forgot-password">
${token(s)}
${emailField(s, "email")}
<div><button type="submit">Send the link</button></div>
</form>`
        : html`<p>This service does not send e-mail. Ask its operator for a reset link
(<code>npm run accounts -- reset-link EMAIL</code>).</p>`
    }
<p><a href="/login">Back to log in</a></p>`,
    s,
  );

export const resetPasswordPage = (s: FormState & { readonly token: string }): Response =>
  respond(
    "Choose a new password",
    html`<h1>Choose a new password</h1>
${errorBox(s.error)}
<form class="stack" method="post" action="/reset-password">
${token(s)}
<input type="hidden" name="token" value="${s.token}">
${
      passwordField(
        s,
        "password",
        "New password",
        "new-password",
        "At least 12 characters, not your e-mail address.",
      )
    }
<div><button type="submit">Set the password</button></div>
</form>`,
    s,
  );

export const confirmEmailPage = (s: FormState & { readonly token: string }): Response =>
  respond(
    "Confirm your e-mail address",
    html`<h1>Confirm your e-mail address</h1>
${errorBox(s.error)}
<form class="stack" method="post" action="/confirm-email">
${token(s)}
<input type="hidden" name="token" value="${s.token}">
<div><button type="submit">Confirm my address</button></div>
</form>`,
    s,
  );

/** A page that only says something (a link used up, a refusal) with a way onwards. */
export const messagePage = (
  o: {
    readonly title: string;
    readonly message: string;
    readonly status: number;
    readonly link?: { readonly href: string; readonly text: string };
    readonly headers?: HeadersInit;
  },
): Response =>
  pageResponse({
    title: o.title,
    narrow: true,
    status: o.status,
    headers: o.headers,
    body: html`<h1>${o.title}</h1>
<p>${o.message}</p>
${o.link ? html`<p><a href="${o.link.href}">${o.link.text}</a></p>` : ""}`,
  });
