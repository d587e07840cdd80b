/**
 * Response compression (gzip, brotli) negotiated by `Accept-Encoding`. Deno's `CompressionStream` compresses on
 * the thread that serves HTTP (so do `node:zlib`'s async calls: brotli quality 11 on the 3.5 MB GraphiQL bundle
 * held the loop 12 s, quality 4 110 ms, gzip 6 70 ms), so bodies are fed to it in 32 KiB slices with a turn of
 * the event loop between them: `npm run measure:compression` shows the longest stall at 10-30 ms for the 3.5 MB
 * bundle and a 1 MB JSON answer, against 100-800 ms in one piece. Static assets are compressed once, the same
 * way, and kept (at the stream's level, not brotli 11: 660 kB instead of 570 kB for GraphiQL, never a 12 s stall).
 */

import { knownBody } from "./known_body.ts";

export type Encoding = "br" | "gzip";

/** Smaller answers gain little and cost a round of framing. */
export const minimumBytes = 1024;
const sliceBytes = 32 * 1024;
const formats: Readonly<Record<Encoding, CompressionFormat>> = { br: "brotli", gzip: "gzip" };

const compressible = /^(text\/|application\/(json|javascript|xml|[\w.+-]*\+(json|xml))\b|image\/svg\+xml)/i;

export const isCompressible = (contentType: string | null): boolean =>
  contentType !== null && compressible.test(contentType);

/**
 * The encoding to send (RFC 9110 12.5.3), or undefined for identity: q-values honoured, `*` covers unnamed
 * codings, brotli preferred on a tie, and an `identity` weighted above both wins.
 */
export const negotiate = (acceptEncoding: string | null): Encoding | undefined => {
  if (!acceptEncoding) return undefined;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.split(";").map((p) => p.trim().toLowerCase());
    if (!name) continue;
    let q = 1;
    for (const param of params) {
      const m = /^q=([01](?:\.\d{0,3})?)$/.exec(param);
      if (m) q = Math.min(1, Number(m[1]));
    }
    weights.set(name === "x-gzip" ? "gzip" : name, q);
  }
  const weight = (coding: string) => weights.get(coding) ?? weights.get("*") ?? 0;
  const br = weight("br");
  const gzip = weight("gzip");
  const best = Math.max(br, gzip);
  if (best <= 0 || (weights.get("identity") ?? 0) > best) return undefined;
  return br >= gzip ? "br" : "gzip";
};

/** The body compressed slice by slice, as the reader pulls. */
type Bytes = Uint8Array<ArrayBuffer>;

export const compressedStream = (bytes: Bytes, encoding: Encoding): ReadableStream<Bytes> => {
  let offset = 0;
  return new ReadableStream<Bytes>({
    async pull(controller) {
      // a reader that never waits (collecting a whole body) would otherwise run every slice in one go
      if (offset > 0) await new Promise((resolve) => setTimeout(resolve, 0));
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset += sliceBytes));
    },
  }).pipeThrough<Bytes>(new CompressionStream(formats[encoding]));
};

const encoder = new TextEncoder();
const assetKeys = new WeakMap<Response, string>();
const compressedAssets = new Map<string, Promise<Bytes>>();

/** Marks a static asset's answer: its compressed forms are made once per `key` and reused. */
export const compressOnce = (response: Response, key: string): Response => {
  assetKeys.set(response, key);
  return response;
};

/** Whether no cache may keep the answer (`Cache-Control: no-store`). */
const noStore = (headers: Headers) => /\bno-store\b/.test(headers.get("cache-control") ?? "");

/** Adds a token to `Vary` once. */
export const addVary = (headers: Headers, token: string) => {
  const vary = headers.get("vary");
  if (vary === null) return headers.set("vary", token); // most answers: nothing to merge with
  const present = vary.split(",").map((t) => t.trim().toLowerCase()).filter(Boolean);
  if (present.includes("*") || present.includes(token.toLowerCase())) return;
  headers.set("vary", [...present.length ? [vary] : [], token].join(", "));
};

/**
 * The answer as the client asked for it. Only compressible bodies over `minimumBytes` are touched; 1xx, 204, 304,
 * HEAD and already-encoded answers pass as they are. A compressed answer's weak ETag still names it: the same
 * representation, only encoded (strong ETags become weak, as they would behind nginx).
 */
export const negotiateEncoding = (
  request: Request,
  response: Response,
  contentType: string | null = response.headers.get("content-type"),
): Response | Promise<Response> => {
  const { status, headers } = response;
  if (status === 304) addVary(headers, "Accept-Encoding"); // as the 200 it stands for
  if (status < 200 || status === 204 || status === 304 || !isCompressible(contentType)) return response;
  const key = assetKeys.get(response);
  // a body known as text is not touched (reading `response.body` turns it into a stream, which Deno then sends
  // as a stream instead of in one piece)
  const text = key === undefined ? knownBody(response) : undefined;
  // a UTF-8 character takes at most 3 bytes: most small answers are known small without encoding them, and go
  // out the same whatever the client accepts, so they need no Vary either (one header less on most API answers)
  if (text !== undefined && text.length * 3 < minimumBytes) return response;
  // Vary tells caches which request headers select the answer; an answer no cache may keep needs none
  if (!noStore(headers)) addVary(headers, "Accept-Encoding");
  const accepted = request.headers.get("accept-encoding");
  if (!accepted) return response; // the answer as it is, without a promise (most API clients ask for none)
  const encoding = negotiate(accepted);
  if (!encoding || request.method === "HEAD" || headers.has("content-encoding")) return response;
  if (text === undefined && response.body === null) return response;
  return encoded(response, encoding, key, text);
};

/** The body in `encoding` (the answer as it is when it turns out smaller than `minimumBytes`). */
const encoded = async (
  response: Response,
  encoding: Encoding,
  key: string | undefined,
  text: string | undefined,
): Promise<Response> => {
  const { status, headers } = response;
  const cached = key === undefined ? undefined : compressedAssets.get(`${encoding} ${key}`);
  let body: Bytes | ReadableStream<Bytes>;
  if (text !== undefined) {
    const bytes = encoder.encode(text);
    if (bytes.length < minimumBytes) return response;
    body = compressedStream(bytes, encoding);
  } else if (cached) {
    await response.body!.cancel();
    body = await cached;
  } else {
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length < minimumBytes) {
      return new Response(bytes, { status, statusText: response.statusText, headers });
    }
    if (key === undefined) body = compressedStream(bytes, encoding);
    else {
      const once = new Response(compressedStream(bytes, encoding)).arrayBuffer().then((b) =>
        new Uint8Array(b)
      );
      compressedAssets.set(`${encoding} ${key}`, once);
      once.catch(() => compressedAssets.delete(`${encoding} ${key}`));
      body = await once;
    }
  }
  headers.set("content-encoding", encoding);
  headers.delete("content-length");
  const etag = headers.get("etag");
  if (etag && !etag.startsWith("W/")) headers.set("etag", `W/${etag}`);
  return new Response(body, { status, statusText: response.statusText, headers });
};
