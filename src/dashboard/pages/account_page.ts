/** `/dashboard/account`: the account's facts, a password change and deleting the account (password asked). */
import { html } from "../html.ts";
import { pageResponse, type Viewer } from "../page.ts";
import { formatCount, formatDay } from "../format.ts";
import type { AccountView } from "../views.ts";
import { errorBox, noticeBox } from "./auth_pages.ts";

export const accountPage = (
  o: {
    readonly viewer: Viewer;
    readonly account: AccountView;
    readonly notice?: string;
    /** `form` says which form the error belongs to. */
    readonly error?: {
      readonly form: "password" | "delete";
      readonly message: string;
      readonly field?: string;
    };
    readonly status?: number;
  },
): Response => {
  const a = o.account;
  const csrf = html`<input type="hidden" name="csrf" value="${o.viewer.csrfToken}">`;
  const errorOf = (form: "password" | "delete") => o.error?.form === form ? o.error : undefined;
  const invalid = (form: "password" | "delete", f: string) =>
    o.error?.form === form && o.error.field === f ? "true" : undefined;
  return pageResponse({
    title: "Account",
    viewer: o.viewer,
    section: "account",
    status: o.status,
    body: html`<h1>Account</h1>
${noticeBox(o.notice)}
<dl class="facts">
<dt>E-mail</dt><dd>${a.email}</dd>
<dt>Plan</dt><dd>${a.plan}${
      a.plan === "FREE"
        ? html`
          <span class="muted">(FREE keys only; the operator can move you to PAID)</span>
        `
        : ""
    }</dd>
${
      a.plan === "PAID"
        ? html`
          <dt>Credits</dt>
          <dd>${a.credits === null ? "unlimited" : formatCount(a.credits)}</dd>
        `
        : ""
    }
<dt>Member since</dt><dd>${formatDay(a.createdAt)}</dd>
</dl>
<h2 id="password-heading">Change password</h2>
<p>Your other sessions are logged out when the password changes.</p>
${errorBox(errorOf("password"))}
<form class="stack" method="post" action="/dashboard/account/password" aria-labelledby="password-heading">
${csrf}
<div><label for="current">Current password</label>
<input type="password" id="current" name="current" required maxlength="1024" autocomplete="current-password" aria-invalid="${
      invalid("password", "current")
    }"></div>
<div><label for="next">New password<span class="hint" id="next-hint">At least 12 characters, not your e-mail address.</span></label>
<input type="password" id="next" name="next" required maxlength="1024" autocomplete="new-password" aria-describedby="next-hint" aria-invalid="${
      invalid("password", "next")
    }"></div>
<div><button type="submit">Change password</button></div>
</form>
<h2 id="delete-heading">Delete account</h2>
<p>Deleting revokes every key of the account at once and logs you out. It cannot be undone.</p>
${errorBox(errorOf("delete"))}
<form class="stack" method="post" action="/dashboard/account/delete" aria-labelledby="delete-heading">
${csrf}
<div><label for="delete-password">Your password, to confirm</label>
<input type="password" id="delete-password" name="password" required maxlength="1024" autocomplete="current-password" aria-invalid="${
      invalid("delete", "password")
    }"></div>
<div><button type="submit" class="danger">Delete my account</button></div>
</form>`,
  });
};
