/**
 * An HTTP client that hands back the bytes as sent (Deno's fetch decodes gzip and brotli on its own), so tests
 * can see what compression did on the wire.
 */
import http from "node:http";

export interface RawAnswer {
  readonly status: number;
  readonly headers: Headers;
  /** The body as it arrived, still encoded. */
  readonly bytes: Uint8Array<ArrayBuffer>;
}

export const rawRequest = (
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: init.method ?? "GET", headers: init.headers ?? {} },
      (res) => {
        const chunks: Array<Uint8Array> = [];
        res.on("data", (c: Uint8Array) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
          }
          const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
          let offset = 0;
          for (const c of chunks) bytes.set(c, (offset += c.length) - c.length);
          resolve({ status: res.statusCode!, headers, bytes });
        });
      },
    );
    request.on("error", reject);
    request.end(init.body);
  });

/** Decodes a `br` or `gzip` body. */
export const decode = async (bytes: Uint8Array<ArrayBuffer>, encoding: string | null) =>
  encoding === null ? bytes : new Uint8Array(
    await new Response(
      new Blob([bytes]).stream().pipeThrough(new DecompressionStream(encoding === "br" ? "brotli" : "gzip")),
    ).arrayBuffer(),
  );
