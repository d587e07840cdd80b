/**
 * HTTP requests from a chosen local source address (`127.0.0.2`, `127.0.0.3`, …), so one machine can play several
 * clients that a server (or a proxy in front of it) tells apart by address. Deno's fetch cannot choose the
 * source; node:http can (`localAddress`). One fresh connection per request.
 */
import { Buffer } from "node:buffer";
import http from "node:http";

export interface SourcedAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
}

export const requestFrom = (
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<SourcedAnswer> =>
  new Promise((resolve, reject) => {
    const u = new URL(url);
    const body = init.body === undefined ? undefined : new TextEncoder().encode(init.body);
    const request = http.request({
      host: u.hostname,
      port: Number(u.port),
      path: `${u.pathname}${u.search}`,
      method: init.method ?? "GET",
      localAddress,
      agent: false,
      headers: { ...init.headers, ...(body ? { "content-length": String(body.length) } : {}) },
    }, (response) => {
      const chunks: Array<Uint8Array> = [];
      response.on("data", (c: Uint8Array) => chunks.push(c));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: new TextDecoder().decode(Buffer.concat(chunks)),
        }));
      response.on("error", reject);
    });
    request.setTimeout(120_000, () => request.destroy(new Error(`no answer from ${url} in 120 s`)));
    request.on("error", reject);
    request.end(body);
  });
