/**
 * An HTML page answer with its Content-Security-Policy: each inline `<script>` is allowed by its SHA-256 hash, so
 * the policy needs no `'unsafe-inline'` and an injected script would not run.
 */
import { createHash } from "node:crypto";

/**
 * A page's policy: scripts only from this origin or inline ones whose hashes are listed; styles may be inline
 * (GraphiQL and Swagger UI set style attributes at run time); images and fonts from here or `data:` URLs.
 */
export const pagePolicy = (scriptHashes: ReadonlyArray<string>): string =>
  [
    "default-src 'self'",
    `script-src 'self'${scriptHashes.map((h) => ` '${h}'`).join("")}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");

const inlineScript = /<script>([\s\S]*?)<\/script>/g;
const policies = new Map<string, string>();

const policyOf = (html: string): string => {
  let policy = policies.get(html);
  if (policy === undefined) {
    const hashes = [...html.matchAll(inlineScript)].map((m) =>
      `sha256-${createHash("sha256").update(m[1]!).digest("base64")}`
    );
    policy = pagePolicy(hashes);
    if (policies.size < 64) policies.set(html, policy); // a handful of fixed pages
  }
  return policy;
};

export const htmlPage = (html: string, headers: Record<string, string> = {}): Response =>
  new Response(html, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": policyOf(html),
      ...headers,
    },
  });
