/** A JSON answer with a weak ETag of its body, answered 304 when the client already holds it. */
import { stringify } from "@src/domain/json.ts";
import { jsonText } from "./json.ts";

/** cyrb53: a fast 53-bit string hash, enough to tell representations apart for caching. */
const hash53 = (text: string): string => {
  let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
};

/** A JSON answer encoded once: its text and the headers it goes out with, its weak ETag among them. */
export interface EncodedJson {
  readonly text: string;
  readonly headers: Readonly<Record<string, string>>;
}

export const encodedJson = (body: unknown, headers: Record<string, string>): EncodedJson => {
  const text = stringify(body);
  return { text, headers: { ...headers, etag: `W/"${hash53(text)}"` } };
};

/** The encoded answer, or 304 Not Modified (same headers, no body) when the client already holds it. */
export const answerEncoded = (request: Request, { text, headers }: EncodedJson): Response => {
  const asked = request.headers.get("if-none-match");
  if (asked && asked.split(",").some((t) => t.trim() === headers.etag || t.trim() === "*")) {
    return new Response(null, { status: 304, headers });
  }
  return jsonText(text, 200, headers);
};

/**
 * A JSON answer with a weak ETag of its body, or 304 Not Modified (same caching headers, no body) when the client
 * already holds that representation (`If-None-Match`).
 */
export const conditionalJson = (
  request: Request,
  body: unknown,
  headers: Record<string, string>,
): Response => answerEncoded(request, encodedJson(body, headers));
