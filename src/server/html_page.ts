/**
 * An HTML page answer with its Content-Security-Policy: each inline `<script>` is allowed by its SHA-256 hash, so
 * the policy needs no `'unsafe-inline'` and an injected script would not run.
 */
import { createHash } from "node:crypto";
import { pagePolicy } from "./security_headers.ts";

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
