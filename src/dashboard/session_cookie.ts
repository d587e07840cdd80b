/**
 * The dashboard's cookies. `cds_session` carries the session secret (only its SHA-256 is stored): HttpOnly (no
 * script reads it), SameSite=Strict (no other site's page sends it), Path=/, and Secure when the operator says
 * the service is reached over HTTPS (PUBLIC_URL https:// or COOKIE_SECURE=true). `cds_form` carries a random
 * token for the forms used before there is a session (sign-up, log-in, password reset), checked against the
 * same token in the form (double submit), so another site cannot post them in someone's name either.
 * `cds_device` carries the browser's device token (src/programs/accounts/device_token.ts): a browser that
 * logged in before is not locked out by a stranger's wrong passwords. When Secure, every name carries the
 * `__Host-` prefix: browsers then accept the cookie only from this host over HTTPS, for Path=/ and without a
 * Domain, so neither a sibling subdomain nor a plain-HTTP answer can plant or shadow it.
 */
import { deviceDays } from "@src/programs/accounts/device_token.ts";

const named = (name: string) => (secure: boolean) => secure ? `__Host-${name}` : name;
export const sessionCookieName: (secure: boolean) => string = named("cds_session");
export const formCookieName: (secure: boolean) => string = named("cds_form");
export const deviceCookieName: (secure: boolean) => string = named("cds_device");

/** The named cookie's value; the first when a client sends several (none is ever adopted as a session). */
export const cookieOf = (request: Request, name: string): string | undefined => {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return value === "" ? undefined : value;
    }
  }
  return undefined;
};

const attributes = (secure: boolean) => `Path=/; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;

export const sessionCookie = (secret: string, expiresAt: Date, secure: boolean): string =>
  `${sessionCookieName(secure)}=${secret}; ${attributes(secure)}; Expires=${expiresAt.toUTCString()}`;

export const clearedSessionCookie = (secure: boolean): string =>
  `${sessionCookieName(secure)}=; ${attributes(secure)}; Max-Age=0`;

/** A session-less form's token: lives as long as the browser session, at most a day. */
export const formCookie = (token: string, secure: boolean): string =>
  `${formCookieName(secure)}=${token}; ${attributes(secure)}; Max-Age=86400`;

/** The browser's device token, renewed at every log-in; it survives log-out (it is not a session). */
export const deviceCookie = (token: string, secure: boolean): string =>
  `${deviceCookieName(secure)}=${token}; ${attributes(secure)}; Max-Age=${deviceDays * 86_400}`;

/** 32 random bytes, base64url: a form token nobody can guess. */
export const randomToken = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
};
