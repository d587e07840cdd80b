/**
 * Every dashboard URL and what it does (issue 16): the pages before a session (sign-up, log-in, password
 * reset, e-mail confirmation), the session's pages under /dashboard, and the two static assets. A page needing
 * a session without one redirects to /login; every state-changing form is read strictly (form_body.ts) and
 * must carry its CSRF token from one of our pages (csrf.ts); every failure leaves through `failures.ts`.
 * mount.ts makes them the service's routes, public (they need a session, not an API key).
 */
import { Effect, Option } from "effect";
import type { DashboardAccounts, NewSession, SessionInfo } from "./account_service.ts";
import { dashboardJs } from "./assets/script.ts";
import { dashboardCss } from "./assets/style.ts";
import { fromOurPages, tokenMatches } from "./csrf.ts";
import { NotFoundError } from "@src/domain/errors.ts";
import {
  CsrfRefused,
  type DashboardFailure,
  describe,
  failureResponse,
  type FormRefusal,
} from "./failures.ts";
import { type Form, readForm } from "./form_body.ts";
import { assetPaths, seeOther, type Viewer } from "./page.ts";
import { accountPage } from "./pages/account_page.ts";
import {
  confirmEmailPage,
  forgotPasswordPage,
  type FormState,
  loginPage,
  messagePage,
  resetPasswordPage,
  signupPage,
} from "./pages/auth_pages.ts";
import { keyPage, revokeConfirmPage } from "./pages/key_page.ts";
import { keysPage } from "./pages/keys_page.ts";
import { defaultNewKey, newKeyPage, type NewKeyValues } from "./pages/new_key_page.ts";
import { secretPage } from "./pages/secret_page.ts";
import {
  clearedSessionCookie,
  cookieOf,
  deviceCookie,
  deviceCookieName,
  formCookie,
  formCookieName,
  randomToken,
  sessionCookie,
  sessionCookieName,
} from "./session_cookie.ts";
import type { Tier } from "./views.ts";

export interface DashboardRequest {
  readonly request: Request;
  readonly url: URL;
  readonly params: Readonly<Record<string, string>>;
  /** The client's address, for log-in throttling. */
  readonly clientAddress: string;
  readonly publicUrl: string | undefined;
  readonly cookieSecure: boolean;
}

export interface DashboardRoute<R> {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly run: (req: DashboardRequest) => Effect.Effect<Response, never, R> | Response;
}

/** Short notices after a redirect, by a fixed code (nothing from the URL is echoed). */
const notices: Readonly<Record<string, string>> = {
  renamed: "The key is renamed.",
  activated: "The key is active again.",
  deactivated: "The key is deactivated: requests with it are refused until you activate it.",
  revoked: "The key is revoked.",
  password: "Your password is changed. Your other sessions are logged out.",
  deleted: "Your account is deleted and its keys are revoked.",
  reset: "Your password is set. Log in with it.",
  confirmed: "Your e-mail address is confirmed. Log in to continue.",
  "logged-out": "You are logged out.",
};
const noticeOf = (url: URL) => notices[url.searchParams.get("done") ?? ""];

/** A message as a sentence: with its full stop. */
const sentence = (text: string | undefined) => text === undefined || /[.!?]$/.test(text) ? text : `${text}.`;

const keyIdOf = (req: DashboardRequest): number | undefined => {
  const id = req.params.id ?? "";
  return /^[1-9]\d{0,14}$/.test(id) ? Number(id) : undefined;
};

/** Where people reach the service: PUBLIC_URL, else the address this request came to. */
const baseOf = (req: DashboardRequest) => req.publicUrl ?? req.url.origin;

const todayUtc = () => new Date().toISOString().slice(0, 10);

/** A new session's cookie and the browser's renewed device token. */
const sessionCookies = (session: NewSession, secure: boolean): Array<[string, string]> => [
  ["set-cookie", sessionCookie(session.secret, session.expiresAt, secure)],
  ["set-cookie", deviceCookie(session.deviceToken, secure)],
];

export const makeDashboardRoutes = <R>(accounts: DashboardAccounts<R>): ReadonlyArray<DashboardRoute<R>> => {
  type Fx = Effect.Effect<Response, DashboardFailure, R>;
  type Rerender = (r: FormRefusal) => Fx;

  /**
   * Runs a handler; a failure becomes its page (failures.ts), or, for a refusal of what was typed, the posted
   * form drawn again by `rerender` with the reason.
   */
  const answer = (fx: Fx, rerender?: Rerender): Effect.Effect<Response, never, R> =>
    Effect.catchAll(fx, (f) => {
      const shown = describe(f);
      return shown.kind === "form" && rerender
        ? Effect.catchAll(rerender(shown), (g) => Effect.succeed(failureResponse(g)))
        : Effect.succeed(failureResponse(f));
    });
  const notFound = new NotFoundError({ message: "No such key in this account" });

  const sessionOfRequest = (req: DashboardRequest) => {
    const secret = cookieOf(req.request, sessionCookieName(req.cookieSecure));
    return secret === undefined || secret.length > 200
      ? Effect.succeed({ secret, session: Option.none<SessionInfo>() })
      : Effect.map(accounts.sessionOf(secret), (session) => ({ secret, session }));
  };

  const viewerOf = (s: SessionInfo): Viewer => ({ email: s.account.email, csrfToken: s.csrfToken });

  /** A page of the session: without one, to /login (dropping a stale cookie). */
  const page = (f: (s: SessionInfo, req: DashboardRequest) => Fx) => (req: DashboardRequest) =>
    answer(Effect.flatMap(sessionOfRequest(req), ({ secret, session }) =>
      Option.match(session, {
        onNone: () =>
          Effect.succeed(
            seeOther("/login", secret ? { "set-cookie": clearedSessionCookie(req.cookieSecure) } : {}),
          ),
        onSome: (s) => f(s, req),
      })));

  /**
   * A state-changing form of the session: read strictly, then its token and Origin checked before anything
   * happens. `rerender` draws the form again with a refusal.
   */
  const action = (
    multi: ReadonlyArray<string>,
    f: (s: SessionInfo, form: Form, req: DashboardRequest) => Fx,
    rerender?: (s: SessionInfo, form: Form, req: DashboardRequest) => Rerender,
  ) =>
  (req: DashboardRequest) =>
    Effect.flatMap(sessionOfRequest(req), ({ session }) =>
      Option.match(session, {
        onNone: () => Effect.succeed(seeOther("/login")),
        onSome: (s) =>
          answer(
            Effect.flatMap(readForm(req.request, multi), (form) =>
              tokenMatches(form.get("csrf"), s.csrfToken) && fromOurPages(req.request, req.url, req.publicUrl)
                ? answer(f(s, form, req), rerender?.(s, form, req))
                : Effect.fail(new CsrfRefused())),
          ),
      })).pipe(Effect.catchAll((f) => Effect.succeed(failureResponse(f))));

  // --- the forms before a session: a `cds_form` token (double submit) instead of the session's

  /** The browser's form token, or a new one with the cookie that sets it. */
  const formTokenOf = (req: DashboardRequest): { token: string; headers: Record<string, string> } => {
    const existing = cookieOf(req.request, formCookieName(req.cookieSecure));
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return { token: existing, headers: {} };
    const token = randomToken();
    return { token, headers: { "set-cookie": formCookie(token, req.cookieSecure) } };
  };

  const publicForm = (
    render: (state: FormState, req: DashboardRequest, form: Form | undefined) => Fx,
    f: (form: Form, req: DashboardRequest) => Fx,
  ) => ({
    get: (req: DashboardRequest) => {
      const { token, headers } = formTokenOf(req);
      return answer(render({ formToken: token, headers, notice: noticeOf(req.url) }, req, undefined));
    },
    post: (req: DashboardRequest) =>
      answer(
        Effect.flatMap(readForm(req.request), (form) => {
          const cookie = cookieOf(req.request, formCookieName(req.cookieSecure));
          if (!tokenMatches(form.get("csrf"), cookie) || !fromOurPages(req.request, req.url, req.publicUrl)) {
            return Effect.fail(new CsrfRefused());
          }
          return answer(f(form, req), (r) =>
            render(
              {
                formToken: cookie!,
                email: form.get("email")?.slice(0, 254),
                error: { message: r.message, field: r.field },
                status: r.status,
                headers: r.headers,
              },
              req,
              form,
            ));
        }),
      ),
  });

  const field = (form: Form, name: string) => form.get(name) ?? "";

  const signup = publicForm(
    (s) => Effect.map(accounts.mailSends, (mail) => signupPage(s, mail)),
    (form, req) =>
      Effect.gen(function* () {
        const { email, created } = yield* accounts.signUp(
          field(form, "email"),
          field(form, "password"),
          req.clientAddress,
        );
        if (created === undefined) {
          // by mail: the same page whether the address had an account already or not
          return messagePage({
            title: "Check your mail",
            message:
              `We sent a message to ${email}. Follow its link to confirm your address: your FREE API ` +
              `key is shown then, and you can log in.`,
            status: 200,
            link: { href: "/login", text: "Go to log in" },
          });
        }
        const base = {
          title: "Your account is ready",
          secret: created.secret,
          keyName: created.key.name,
          tier: created.key.tier,
        };
        // the account's first session comes with the sign-up itself: no log-in (that a throttle might refuse)
        // stands between the account and the page that shows its key's secret
        const session = created.session;
        const fresh = session === undefined ? Option.none() : yield* accounts.sessionOf(session.secret);
        return secretPage({
          base: baseOf(req),
          ...base,
          lead: session === undefined
            ? "Your account is created. Here is its FREE API key."
            : "Your account is created and you are logged in. Here is its FREE API key.",
          viewer: Option.getOrUndefined(Option.map(fresh, viewerOf)),
          next: session === undefined
            ? { href: "/login", text: "I have stored it: go to log in" }
            : { href: "/dashboard", text: "I have stored it: go to the dashboard" },
          headers: session === undefined ? undefined : sessionCookies(session, req.cookieSecure),
        });
      }),
  );

  const login = publicForm(
    (s) => Effect.succeed(loginPage(s)),
    (form, req) =>
      Effect.gen(function* () {
        const session = yield* accounts.logIn(
          field(form, "email"),
          field(form, "password"),
          req.clientAddress,
          cookieOf(req.request, deviceCookieName(req.cookieSecure)),
        );
        // never adopt what came in: the old session (if any) ends, the new secret is the only one
        const old = cookieOf(req.request, sessionCookieName(req.cookieSecure));
        if (old && old.length <= 200) yield* Effect.ignore(accounts.logOut(old));
        return seeOther("/dashboard", sessionCookies(session, req.cookieSecure));
      }),
  );

  const forgot = publicForm(
    (s) => Effect.map(accounts.mailSends, (mail) => forgotPasswordPage(s, mail)),
    (form, req) =>
      Effect.gen(function* () {
        yield* accounts.requestPasswordReset(field(form, "email"));
        const mail = yield* accounts.mailSends;
        return forgotPasswordPage({
          formToken: cookieOf(req.request, formCookieName(req.cookieSecure))!,
          notice: "If an account has this address, a link to choose a new password is on its way.",
        }, mail);
      }),
  );

  const tokenOfQuery = (req: DashboardRequest, form: Form | undefined) =>
    (form?.get("token") ?? req.url.searchParams.get("token") ?? "").slice(0, 200);

  const missingLink = () =>
    messagePage({
      title: "This link cannot be used",
      message: "The link is incomplete. Open it again from the mail, or ask for a new one.",
      status: 400,
      link: { href: "/forgot-password", text: "Ask for a new password link" },
    });

  const reset = publicForm(
    (s, req, form) => {
      const token = tokenOfQuery(req, form);
      return Effect.succeed(token === "" ? missingLink() : resetPasswordPage({ ...s, token }));
    },
    (form) =>
      Effect.as(
        accounts.resetPassword(field(form, "token"), field(form, "password")),
        seeOther("/login?done=reset"),
      ),
  );

  const confirm = publicForm(
    (s, req, form) => {
      const token = tokenOfQuery(req, form);
      return Effect.succeed(token === "" ? missingLink() : confirmEmailPage({ ...s, token }));
    },
    (form, req) =>
      Effect.map(
        accounts.confirmEmail(field(form, "token")),
        (created) =>
          created === undefined ? seeOther("/login?done=confirmed") : secretPage({
            base: baseOf(req),
            title: "Your address is confirmed",
            lead: "Your account is ready. Here is its FREE API key.",
            secret: created.secret,
            keyName: created.key.name,
            tier: created.key.tier,
            next: { href: "/login?done=confirmed", text: "I have stored it: go to log in" },
          }),
      ),
  );

  // --- the session's pages

  const home = page((s, req) =>
    Effect.gen(function* () {
      const keys = yield* accounts.listKeys(s.accountId);
      const usage = yield* accounts.usage(s.accountId);
      return keysPage({
        viewer: viewerOf(s),
        account: s.account,
        keys,
        usage,
        notice: noticeOf(req.url),
        now: new Date(),
      });
    })
  );

  const newKeyForm = (s: SessionInfo, values: NewKeyValues, refusal?: FormRefusal) =>
    newKeyPage({
      viewer: viewerOf(s),
      plan: s.account.plan,
      paidForbidden: sentence(accounts.paidForbidden(s.account.plan)),
      values,
      error: refusal && { message: refusal.message, field: refusal.field },
      status: refusal?.status,
      today: todayUtc(),
    });

  const valuesOf = (form: Form): NewKeyValues => ({
    name: field(form, "name"),
    tier: form.get("tier") === "PAID" ? "PAID" : "FREE",
    networks: form.all("networks"),
    families: form.all("families"),
    expires: field(form, "expires").slice(0, 10),
  });

  const createKey = action(
    ["networks", "families"],
    (s, form, req) =>
      Effect.gen(function* () {
        const tierText = form.get("tier") ?? "FREE";
        const expires = field(form, "expires");
        if (tierText !== "FREE" && tierText !== "PAID") {
          return newKeyForm(s, valuesOf(form), {
            status: 400,
            field: "tier",
            message: "Tier: choose FREE or PAID.",
          });
        }
        let expiresAt: Date | null = null;
        if (expires !== "") {
          const d = /^\d{4}-\d{2}-\d{2}$/.test(expires) ? new Date(`${expires}T00:00:00Z`) : undefined;
          if (!d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== expires) {
            return newKeyForm(s, valuesOf(form), {
              status: 400,
              field: "expires",
              message: "Expiry: expected a date like 2030-12-31.",
            });
          }
          expiresAt = d;
        }
        const created = yield* accounts.createKey(s.accountId, {
          name: field(form, "name"),
          tier: tierText as Tier,
          networks: form.all("networks"),
          families: form.all("families"),
          expiresAt,
        });
        return secretPage({
          base: baseOf(req),
          title: "Your new key",
          lead: "The key is created. Here is its secret.",
          secret: created.secret,
          keyName: created.key.name,
          tier: created.key.tier,
          viewer: viewerOf(s),
          next: { href: `/dashboard/keys/${created.key.id}`, text: "I have stored it: show the key" },
        });
      }),
    (s, form) => (r) => Effect.succeed(newKeyForm(s, valuesOf(form), r)),
  );

  const keyView = page((s, req) => {
    const id = keyIdOf(req);
    if (id === undefined) return Effect.succeed(failureResponse(notFound));
    return Effect.gen(function* () {
      const key = yield* accounts.getKey(s.accountId, id);
      const usage = yield* accounts.usage(s.accountId, id);
      return keyPage({ viewer: viewerOf(s), key, usage, notice: noticeOf(req.url), now: new Date() });
    });
  });

  /** A key action: the id checked, the form posted, then back to the key's page with a notice. */
  const keyAction = (
    run: (
      s: SessionInfo,
      id: number,
      form: Form,
      req: DashboardRequest,
    ) => Effect.Effect<Response | string, DashboardFailure, R>,
  ) =>
    action([], (s, form, req) => {
      const id = keyIdOf(req);
      if (id === undefined) return Effect.succeed(failureResponse(notFound));
      return Effect.map(run(s, id, form, req), (r) =>
        typeof r === "string" ? seeOther(`/dashboard/keys/${id}?done=${r}`) : r);
    }, (s, _form, req) => (r) =>
      // a refused rename: the key's page again, with the reason
      Effect.gen(function* () {
        const id = keyIdOf(req)!;
        const key = yield* accounts.getKey(s.accountId, id);
        const usage = yield* accounts.usage(s.accountId, id);
        return keyPage({
          viewer: viewerOf(s),
          key,
          usage,
          error: { message: r.message, field: r.field },
          status: r.status,
          now: new Date(),
        });
      }));

  const rename = keyAction((s, id, form) =>
    Effect.as(accounts.renameKey(s.accountId, id, field(form, "name")), "renamed")
  );
  const rotate = keyAction((s, id, _form, req) =>
    Effect.map(accounts.rotateKey(s.accountId, id), (rotated) =>
      secretPage({
        base: baseOf(req),
        title: "The key's new secret",
        lead: "The key is rotated: the old secret stops working within a second. Here is the new one.",
        secret: rotated.secret,
        keyName: rotated.key.name,
        tier: rotated.key.tier,
        viewer: viewerOf(s),
        next: { href: `/dashboard/keys/${id}`, text: "I have stored it: back to the key" },
      }))
  );
  const activate = keyAction((s, id) => Effect.as(accounts.setKeyActive(s.accountId, id, true), "activated"));
  const deactivate = keyAction((s, id) =>
    Effect.as(accounts.setKeyActive(s.accountId, id, false), "deactivated")
  );
  const revoke = keyAction((s, id) => Effect.as(accounts.revokeKey(s.accountId, id), "revoked"));
  const revokeConfirm = page((s, req) => {
    const id = keyIdOf(req);
    if (id === undefined) return Effect.succeed(failureResponse(notFound));
    return Effect.map(
      accounts.getKey(s.accountId, id),
      (key) =>
        key.status === "revoked"
          ? seeOther(`/dashboard/keys/${id}`)
          : revokeConfirmPage({ viewer: viewerOf(s), key }),
    );
  });

  const account = page((s, req) =>
    Effect.succeed(accountPage({ viewer: viewerOf(s), account: s.account, notice: noticeOf(req.url) }))
  );
  const changePassword = action(
    [],
    (s, form, req) =>
      Effect.as(
        accounts.changePassword(
          s.accountId,
          field(form, "current"),
          field(form, "next"),
          cookieOf(req.request, sessionCookieName(req.cookieSecure)) ?? "",
        ),
        seeOther("/dashboard/account?done=password"),
      ),
    (s) => (r) =>
      Effect.succeed(accountPage({
        viewer: viewerOf(s),
        account: s.account,
        // a wrong current password is InvalidCredentials (401); a weak new one WeakPassword (400)
        error: { form: "password", message: r.message, field: r.status === 401 ? "current" : "next" },
        status: r.status,
      })),
  );
  const deleteAccount = action(
    [],
    (s, form, req) =>
      Effect.as(
        accounts.deleteAccount(s.accountId, field(form, "password")),
        seeOther("/login?done=deleted", { "set-cookie": clearedSessionCookie(req.cookieSecure) }),
      ),
    (s) => (r) =>
      Effect.succeed(accountPage({
        viewer: viewerOf(s),
        account: s.account,
        error: { form: "delete", message: r.message, field: "password" },
        status: r.status,
      })),
  );

  const logout = (req: DashboardRequest) =>
    answer(
      Effect.gen(function* () {
        const { secret, session } = yield* sessionOfRequest(req);
        const cleared = { "set-cookie": clearedSessionCookie(req.cookieSecure) };
        if (Option.isNone(session)) return seeOther("/login", cleared);
        const form = yield* readForm(req.request);
        if (
          !tokenMatches(form.get("csrf"), session.value.csrfToken) ||
          !fromOurPages(req.request, req.url, req.publicUrl)
        ) {
          return yield* Effect.fail(new CsrfRefused());
        }
        yield* accounts.logOut(secret!);
        return seeOther("/login?done=logged-out", cleared);
      }),
    );

  const asset = (body: string, type: string) => () =>
    new Response(body, { headers: { "content-type": type, "cache-control": "public, max-age=300" } });

  return [
    { method: "GET", path: "/signup", run: signup.get },
    { method: "POST", path: "/signup", run: signup.post },
    { method: "GET", path: "/login", run: login.get },
    { method: "POST", path: "/login", run: login.post },
    { method: "POST", path: "/logout", run: logout },
    { method: "GET", path: "/forgot-password", run: forgot.get },
    { method: "POST", path: "/forgot-password", run: forgot.post },
    { method: "GET", path: "/reset-password", run: reset.get },
    { method: "POST", path: "/reset-password", run: reset.post },
    { method: "GET", path: "/confirm-email", run: confirm.get },
    { method: "POST", path: "/confirm-email", run: confirm.post },
    { method: "GET", path: "/dashboard", run: home },
    {
      method: "GET",
      path: "/dashboard/keys/new",
      run: page((s) => Effect.succeed(newKeyForm(s, defaultNewKey))),
    },
    { method: "POST", path: "/dashboard/keys/new", run: createKey },
    { method: "GET", path: "/dashboard/keys/:id", run: keyView },
    { method: "POST", path: "/dashboard/keys/:id/rename", run: rename },
    { method: "POST", path: "/dashboard/keys/:id/rotate", run: rotate },
    { method: "POST", path: "/dashboard/keys/:id/activate", run: activate },
    { method: "POST", path: "/dashboard/keys/:id/deactivate", run: deactivate },
    { method: "GET", path: "/dashboard/keys/:id/revoke", run: revokeConfirm },
    { method: "POST", path: "/dashboard/keys/:id/revoke", run: revoke },
    { method: "GET", path: "/dashboard/account", run: account },
    { method: "POST", path: "/dashboard/account/password", run: changePassword },
    { method: "POST", path: "/dashboard/account/delete", run: deleteAccount },
    { method: "GET", path: assetPaths.css, run: asset(dashboardCss, "text/css; charset=utf-8") },
    { method: "GET", path: assetPaths.js, run: asset(dashboardJs, "text/javascript; charset=utf-8") },
  ];
};
