/**
 * A browser-like client of the dashboard over real HTTP for the security and resilience tests: it keeps the
 * cookies the service sets, reads each form's CSRF token from the page, and sends the Origin a browser would.
 */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly setCookies: ReadonlyArray<string>;
}

export const csrfOf = (html: string): string | undefined => html.match(/name="csrf" value="([^"]+)"/)?.[1];

/** The one-time secret on a "store this key now" page. */
export const secretOf = (html: string): string | undefined =>
  html.match(/<code class="secret" id="secret"[^>]*>([^<]+)<\/code>/)?.[1];

export class DashboardClient {
  readonly cookies = new Map<string, string>();
  constructor(readonly base: string, readonly origin: string = base) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async request(
    method: string,
    path: string,
    init: { body?: BodyInit; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size > 0 && headers.cookie === undefined) headers.cookie = this.cookieHeader();
    const r = await fetch(`${this.base}${path}`, { method, headers, body: init.body, redirect: "manual" });
    const setCookies = r.headers.getSetCookie();
    for (const c of setCookies) {
      const [pair] = c.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq), value = pair!.slice(eq + 1);
      if (value === "" || /max-age=0/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: r.status, headers: r.headers, text: await r.text(), setCookies };
  }

  get(path: string): Promise<Answer> {
    return this.request("GET", path);
  }

  /** Posts a form as a browser on our page would (its Origin, url-encoded); `fields` may repeat names. */
  post(
    path: string,
    fields: Record<string, string | ReadonlyArray<string>> | URLSearchParams,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const body = fields instanceof URLSearchParams ? fields : new URLSearchParams();
    if (!(fields instanceof URLSearchParams)) {
      for (const [k, v] of Object.entries(fields)) {
        for (const one of typeof v === "string" ? [v] : v) body.append(k, one);
      }
    }
    return this.request("POST", path, {
      body: body.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", origin: this.origin, ...headers },
    });
  }

  /** GETs the page holding a form and posts it with the page's token. */
  async submit(
    page: string,
    action: string,
    fields: Record<string, string | ReadonlyArray<string>>,
  ): Promise<Answer> {
    const shown = await this.get(page);
    const csrf = csrfOf(shown.text);
    if (csrf === undefined) throw new Error(`no CSRF token on ${page} (${shown.status})`);
    return this.post(action, { csrf, ...fields });
  }

  /** Signs up (logged in after it, without mail) and returns the FREE key's secret. */
  async signUp(email: string, password: string): Promise<string> {
    const r = await this.submit("/signup", "/signup", { email, password });
    const secret = secretOf(r.text);
    if (r.status !== 200 || secret === undefined) throw new Error(`sign-up failed: ${r.status} ${r.text}`);
    return secret;
  }

  async logIn(email: string, password: string): Promise<Answer> {
    return await this.submit("/login", "/login", { email, password });
  }

  /** Creates a key on the new-key page; returns its secret and id. */
  async createKey(
    fields: Record<string, string | ReadonlyArray<string>>,
  ): Promise<{ secret: string; id: number }> {
    const r = await this.submit("/dashboard/keys/new", "/dashboard/keys/new", fields);
    const secret = secretOf(r.text);
    const id = Number(r.text.match(/href="\/dashboard\/keys\/(\d+)"/)?.[1]);
    if (secret === undefined || !id) throw new Error(`key not created: ${r.status} ${r.text.slice(0, 2000)}`);
    return { secret, id };
  }
}
