/**
 * HTTP as clients and browsers expect it, against the real service: compression negotiated by Accept-Encoding
 * (with Vary, sizes and bytes checked on the wire), private caching of keyed answers, X-Request-Id echoed or
 * generated on every answer and on the request's log lines, X-RateLimit-* of the budget that decided, the
 * landing page, CORS configured and not, and the security headers.
 */
import assert from "node:assert/strict";
import { getIntrospectionQuery } from "graphql";
import { Effect, Logger } from "effect";
import { makeJsonLogger } from "@layers/logger.ts";
import { internalError } from "@src/server/router.ts";
import { createKey, createTestEnvironment, type TestEnvironment } from "../support/environment.ts";
import { type RunningService, startService } from "../support/service.ts";
import { decode, rawRequest } from "../support/raw_http.ts";

const appOrigin = "https://app.example";
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const varyOf = (headers: Headers) =>
  (headers.get("vary") ?? "").split(",").map((v) => v.trim().toLowerCase()).filter(Boolean);

Deno.test({
  name: "the HTTP edge",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const environments: Array<TestEnvironment> = await Promise.all([
      createTestEnvironment("edge"),
      createTestEnvironment("edge-nocors"),
    ]);
    const services: Array<RunningService> = [];
    try {
      const env = {
        ...environments[0]!.env,
        CORS_ORIGINS: `${appOrigin}, http://localhost:8080`,
        LOG_LEVEL: "debug",
        GRAPHQL_RATE_FREE: "2",
        RATE_LIMIT_FREE: "100",
      };
      const [service, plain] = await Promise.all([
        startService(env),
        startService(environments[1]!.env),
      ]);
      services.push(service!, plain!);
      const base = service!.base;
      const { key } = await createKey(env, "--tier", "paid", "--name", "edge");
      const { key: freeKey } = await createKey(env, "--tier", "free", "--name", "edge free");
      const keyed = { apikey: key };

      await t.step("static assets: brotli or gzip as asked, identity otherwise, same bytes", async () => {
        const file = await Deno.readFile(
          new URL("../../node_modules/graphiql/graphiql.min.js", import.meta.url),
        );
        const url = `${base}/v1/graphiql/graphiql.min.js`;
        for (
          const [accept, expected] of [
            ["gzip, deflate, br", "br"],
            ["br;q=0.5, gzip", "gzip"],
            ["gzip;q=0.2, br;q=0.9", "br"],
            ["*", "br"],
            ["identity", null],
            ["br;q=0, gzip;q=0", null],
            ["gzip;q=0.5, identity", null],
            ["", null],
          ] as const
        ) {
          for (let i = 0; i < 2; i++) { // the second answer comes from the kept compressed copy
            const r = await rawRequest(url, { headers: accept ? { "accept-encoding": accept } : {} });
            assert.equal(r.status, 200);
            assert.equal(r.headers.get("content-encoding"), expected, `Accept-Encoding: ${accept}`);
            assert.ok(varyOf(r.headers).includes("accept-encoding"), "Vary: Accept-Encoding");
            if (expected) assert.ok(r.bytes.length < file.length / 4, `${expected}: ${r.bytes.length} bytes`);
            else assert.equal(r.bytes.length, file.length);
            assert.deepEqual(await decode(r.bytes, expected), file);
          }
        }
        const png = await rawRequest(`${base}/docs/favicon-32x32.png`, {
          headers: { "accept-encoding": "br" },
        });
        assert.equal(png.headers.get("content-encoding"), null, "images are not compressed");
      });

      await t.step(
        "JSON answers: a large one compressed (same JSON), a small one not, ETag and 304 intact",
        async () => {
          const body = JSON.stringify({ query: getIntrospectionQuery() });
          const post = (encoding?: string) =>
            rawRequest(`${base}/v1/graphql`, {
              method: "POST",
              headers: {
                ...keyed,
                "content-type": "application/json",
                ...encoding ? { "accept-encoding": encoding } : {},
              },
              body,
            });
          const plainAnswer = await post();
          assert.equal(plainAnswer.status, 200);
          assert.ok(plainAnswer.bytes.length > 500_000, `introspection: ${plainAnswer.bytes.length} bytes`);
          for (const encoding of ["br", "gzip"]) {
            const started = performance.now();
            const r = await post(encoding);
            const ms = performance.now() - started;
            assert.equal(r.headers.get("content-encoding"), encoding);
            assert.ok(r.bytes.length < plainAnswer.bytes.length / 5, `${encoding}: ${r.bytes.length} bytes`);
            assert.deepEqual(
              JSON.parse(new TextDecoder().decode(await decode(r.bytes, encoding))),
              JSON.parse(new TextDecoder().decode(plainAnswer.bytes)),
            );
            console.log(
              `introspection ${plainAnswer.bytes.length} -> ${encoding} ${r.bytes.length} B in ${
                ms.toFixed(0)
              } ms`,
            );
          }

          const small = await rawRequest(`${base}/health/nothing`, { headers: { "accept-encoding": "br" } });
          assert.equal(small.status, 404);
          assert.ok(small.bytes.length < 1024);
          assert.equal(small.headers.get("content-encoding"), null, "under 1 KiB: sent as is");

          const blocks = `${base}/v2/explorer/mainnet/blocks?limit=50`;
          const first = await rawRequest(blocks, { headers: { ...keyed, "accept-encoding": "gzip" } });
          assert.equal(first.status, 200);
          assert.equal(first.headers.get("content-encoding"), "gzip");
          const etag = first.headers.get("etag");
          assert.match(etag ?? "", /^W\/"/);
          const again = await rawRequest(blocks, {
            headers: { ...keyed, "accept-encoding": "gzip", "if-none-match": etag! },
          });
          assert.equal(again.status, 304);
          assert.equal(again.bytes.length, 0);
          assert.equal(again.headers.get("content-encoding"), null);
          assert.equal(again.headers.get("etag"), etag);
          assert.ok(varyOf(again.headers).includes("accept-encoding"), "a 304 varies as its 200 does");
          const identity = await rawRequest(blocks, { headers: { ...keyed, "if-none-match": etag! } });
          assert.equal(identity.status, 304, "the ETag names the representation whatever its encoding");
        },
      );

      await t.step("keyed answers are private; public pages stay public", async () => {
        for (
          const path of [
            "/v2/explorer/mainnet/blocks",
            "/v2/explorer/mainnet/stats",
            "/api/public/protocol-parameters",
            "/api/public/price",
          ]
        ) {
          const r = await fetch(`${base}${path}`, { headers: keyed });
          await r.body?.cancel();
          assert.equal(r.status, 200, path);
          const cc = r.headers.get("cache-control") ?? "";
          assert.match(cc, /^private, max-age=\d+$/, `${path}: ${cc}`);
        }
        const graphql = await fetch(`${base}/v1/graphql`, {
          method: "POST",
          headers: { ...keyed, "content-type": "application/json" },
          body: JSON.stringify({ query: "{ __typename }" }),
        });
        await graphql.body?.cancel();
        assert.equal(graphql.headers.get("cache-control"), "no-store");
        const docs = await fetch(`${base}/docs/swagger-ui.css`);
        await docs.body?.cancel();
        assert.match(docs.headers.get("cache-control") ?? "", /^public/);
      });

      await t.step(
        "X-Request-Id: echoed when safe, generated otherwise, on every kind of answer",
        async () => {
          const echoed = await fetch(`${base}/health`, { headers: { "x-request-id": "client-id.42:abc" } });
          await echoed.body?.cancel();
          assert.equal(echoed.headers.get("x-request-id"), "client-id.42:abc");
          for (const bad of ["x".repeat(129), "with space", 'quote"d', "<script>"]) {
            const r = await fetch(`${base}/health`, { headers: { "x-request-id": bad } });
            await r.body?.cancel();
            assert.match(r.headers.get("x-request-id") ?? "", uuid, JSON.stringify(bad));
          }
          const answers = await Promise.all([
            fetch(`${base}/health`), // 200
            fetch(`${base}/no/such/path`), // 404
            fetch(`${base}/health`, { method: "POST" }), // 405
            fetch(`${base}/v1/key`), // 401
            fetch(`${base}/v1/key`, { headers: keyed }), // 200 keyed
            fetch(`${base}/`), // the landing page
          ]);
          const ids = new Set<string>();
          for (const r of answers) {
            await r.body?.cancel();
            const id = r.headers.get("x-request-id") ?? "";
            assert.match(id, uuid, `${r.status} ${r.url}`);
            ids.add(id);
          }
          assert.deepEqual(answers.map((r) => r.status), [200, 404, 405, 401, 200, 200]);
          assert.equal(ids.size, answers.length, "one id per request");

          // a WebSocket upgrade's 101 carries it too (read from the raw socket: WebSocket clients hide headers)
          const { port } = new URL(base);
          const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
          try {
            await conn.write(new TextEncoder().encode(
              `GET /v1/ogmios?apikey=${key} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
                `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nX-Request-Id: ws-upgrade-1\r\n\r\n`,
            ));
            const buffer = new Uint8Array(4096);
            let text = "";
            while (!text.includes("\r\n\r\n")) {
              const n = await conn.read(buffer);
              if (n === null) break;
              text += new TextDecoder().decode(buffer.subarray(0, n));
            }
            assert.match(text, /^HTTP\/1.1 101/);
            assert.match(text, /\r\nx-request-id: ws-upgrade-1\r\n/i);
          } finally {
            conn.close();
          }
        },
      );

      await t.step("the request id is on the request's log lines", async () => {
        const id = `log-check-${crypto.randomUUID()}`;
        const r = await fetch(`${base}/v2/explorer/mainnet/stats`, {
          headers: { ...keyed, "x-request-id": id },
        });
        await r.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 200));
        const lines = service!.lines.filter((l) => l.includes(id)).map((l) => JSON.parse(l));
        assert.ok(lines.length >= 1, "a log line with the id");
        const answered = lines.find((l) => l.message === "answered");
        assert.ok(answered, JSON.stringify(lines));
        assert.equal(answered.requestId, id);
        assert.equal(answered.status, 200);
        assert.equal(answered.path, "/v2/explorer/mainnet/stats");
        assert.ok(!JSON.stringify(lines).includes(key), "the key is never logged");
      });

      await t.step("a GraphQL 429 carries the GraphQL budget's X-RateLimit-*", async () => {
        const answers = await Promise.all(
          Array.from({ length: 12 }, () =>
            fetch(`${base}/v1/graphql`, {
              method: "POST",
              headers: { apikey: freeKey, "content-type": "application/json" },
              body: JSON.stringify({ query: "{ __typename }" }),
            })),
        );
        for (const r of answers) await r.body?.cancel();
        const refused = answers.filter((r) => r.status === 429);
        assert.ok(refused.length >= 3, `refused ${refused.length} of 12 at 2 per second`);
        for (const r of refused) {
          assert.equal(r.headers.get("x-ratelimit-limit"), "2", "the GraphQL budget, not the general 100");
          assert.equal(r.headers.get("x-ratelimit-remaining"), "0");
          assert.equal(r.headers.get("retry-after"), "1");
          assert.match(r.headers.get("x-request-id") ?? "", uuid);
        }
        const served = answers.filter((r) => r.status === 200);
        assert.ok(served.length >= 1);
        for (const r of served) assert.equal(r.headers.get("x-ratelimit-limit"), "2", "the tighter budget");
        const rest = await fetch(`${base}/v1/key`, { headers: { apikey: freeKey } });
        await rest.body?.cancel();
        assert.equal(rest.headers.get("x-ratelimit-limit"), "100", "REST: the general budget");
      });

      await t.step(
        "GET / is a landing page linking the docs, GraphiQL and health, no key needed",
        async () => {
          const r = await fetch(`${base}/`);
          const html = await r.text();
          assert.equal(r.status, 200);
          assert.match(r.headers.get("content-type") ?? "", /^text\/html/);
          const links = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!);
          for (const link of ["/docs", "/openapi.json", "/v1/graphql", "/v1/preprod/graphql", "/health"]) {
            assert.ok(links.includes(link), `links ${link}`);
            const target = await fetch(`${base}${link}`);
            await target.body?.cancel();
            assert.equal(target.status, 200, link);
          }
          assert.ok(links.every((l) => l.startsWith("/")), "nothing from elsewhere");
          assert.doesNotMatch(html, /<script/);
          assert.match(html, /npm run keys -- create/);
        },
      );

      await t.step("GraphiQL asks for a key instead of sending a placeholder", async () => {
        const html = await (await fetch(`${base}/v1/graphql`)).text();
        assert.doesNotMatch(html, /your API key>/);
        assert.match(html, /<input id="apikey"/);
        assert.match(html, /sessionStorage/);
      });

      await t.step(
        "CORS on: preflight answered for allowed origins, headers on answers, Vary: Origin",
        async () => {
          const preflight = await fetch(`${base}/v2/explorer/mainnet/stats`, {
            method: "OPTIONS",
            headers: {
              origin: appOrigin,
              "access-control-request-method": "GET",
              "access-control-request-headers": "apikey, content-type",
            },
          });
          await preflight.body?.cancel();
          assert.equal(preflight.status, 204);
          assert.equal(preflight.headers.get("access-control-allow-origin"), appOrigin);
          const allowed = (preflight.headers.get("access-control-allow-headers") ?? "").split(/,\s*/);
          for (const h of ["apikey", "authorization", "content-type"]) assert.ok(allowed.includes(h), h);
          assert.match(preflight.headers.get("access-control-allow-methods") ?? "", /\bGET\b/);
          assert.ok(Number(preflight.headers.get("access-control-max-age")) > 0);
          assert.ok(varyOf(preflight.headers).includes("origin"));
          assert.equal(preflight.headers.get("access-control-allow-credentials"), null);

          const graphqlPreflight = await fetch(`${base}/v1/graphql`, {
            method: "OPTIONS",
            headers: { origin: "http://localhost:8080", "access-control-request-method": "POST" },
          });
          await graphqlPreflight.body?.cancel();
          assert.equal(graphqlPreflight.status, 204);
          assert.equal(graphqlPreflight.headers.get("access-control-allow-origin"), "http://localhost:8080");
          assert.match(graphqlPreflight.headers.get("access-control-allow-methods") ?? "", /\bPOST\b/);

          const r = await fetch(`${base}/v2/explorer/mainnet/stats`, {
            headers: { ...keyed, origin: appOrigin },
          });
          await r.body?.cancel();
          assert.equal(r.status, 200);
          assert.equal(r.headers.get("access-control-allow-origin"), appOrigin);
          assert.match(r.headers.get("access-control-expose-headers") ?? "", /x-ratelimit-remaining/);
          assert.ok(varyOf(r.headers).includes("origin"));
          const denied = await fetch(`${base}/v1/key`, { headers: { origin: appOrigin } });
          await denied.body?.cancel();
          assert.equal(denied.status, 401);
          assert.equal(
            denied.headers.get("access-control-allow-origin"),
            appOrigin,
            "a browser may read the 401",
          );

          const stranger = await fetch(`${base}/v2/explorer/mainnet/stats`, {
            method: "OPTIONS",
            headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
          });
          await stranger.body?.cancel();
          assert.equal(stranger.status, 204);
          assert.equal(stranger.headers.get("access-control-allow-origin"), null);
          const strangerGet = await fetch(`${base}/health`, { headers: { origin: "https://evil.example" } });
          await strangerGet.body?.cancel();
          assert.equal(strangerGet.headers.get("access-control-allow-origin"), null);
          assert.ok(varyOf(strangerGet.headers).includes("origin"));

          const unknown = await fetch(`${base}/no/such/path`, { method: "OPTIONS" });
          await unknown.body?.cancel();
          assert.equal(unknown.status, 404);
        },
      );

      await t.step("CORS off (the default): OPTIONS is a 204 with Allow and no CORS headers", async () => {
        const r = await fetch(`${plain!.base}/v1/graphql`, {
          method: "OPTIONS",
          headers: { origin: appOrigin, "access-control-request-method": "POST" },
        });
        await r.body?.cancel();
        assert.equal(r.status, 204);
        assert.equal(r.headers.get("allow"), "POST, GET, HEAD, OPTIONS");
        assert.equal(r.headers.get("access-control-allow-origin"), null);
        assert.equal(r.headers.get("access-control-allow-headers"), null);
        const get = await fetch(`${plain!.base}/health`, { headers: { origin: appOrigin } });
        await get.body?.cancel();
        assert.equal(get.status, 200);
        assert.equal(get.headers.get("access-control-allow-origin"), null);
        assert.ok(!varyOf(get.headers).includes("origin"));
      });

      await t.step(
        "security headers: CSP without unsafe-inline scripts on pages, no framing, nosniff",
        async () => {
          for (const path of ["/", "/docs", "/v1/graphql", "/v1/preprod/graphql"]) {
            const r = await fetch(`${base}${path}`);
            const html = await r.text();
            const csp = r.headers.get("content-security-policy") ?? "";
            assert.match(csp, /frame-ancestors 'none'/, path);
            const scriptSrc = csp.split(";").map((d) => d.trim()).find((d) => d.startsWith("script-src"));
            assert.ok(scriptSrc, `${path}: ${csp}`);
            assert.doesNotMatch(scriptSrc!, /unsafe-inline|unsafe-eval|\*/, path);
            // each inline script is allowed by its hash, and nothing else is
            const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
            const hashes = await Promise.all(inline.map(async (s) =>
              `'sha256-${
                btoa(String.fromCharCode(
                  ...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s))),
                ))
              }'`
            ));
            assert.deepEqual(scriptSrc!.split(" ").slice(2), hashes, path);
            assert.equal(r.headers.get("x-frame-options"), "DENY", path);
            assert.equal(r.headers.get("x-content-type-options"), "nosniff", path);
            assert.equal(r.headers.get("referrer-policy"), "no-referrer", path);
          }
          for (
            const [path, init] of [["/health", {}], ["/nope", {}], ["/v1/key", { headers: keyed }]] as const
          ) {
            const r = await fetch(`${base}${path}`, init);
            await r.body?.cancel();
            assert.equal(r.headers.get("x-content-type-options"), "nosniff", path);
            // JSON is never rendered as a page under nosniff: no browser policy on API answers
            assert.equal(r.headers.get("content-security-policy"), null, path);
            assert.equal(r.headers.get("x-frame-options"), null, path);
          }
          // anything else a browser could render keeps the policy that allows nothing
          const css = await fetch(`${base}/docs/swagger-ui.css`);
          await css.body?.cancel();
          assert.match(css.headers.get("content-type") ?? "", /^text\/css/);
          assert.match(css.headers.get("content-security-policy") ?? "", /^default-src 'none'/);
          assert.equal(css.headers.get("x-frame-options"), "DENY");
        },
      );
    } finally {
      for (const s of services) await s.stop();
      for (const e of environments) await e.close();
    }
  },
});

Deno.test("a 500 names the request id that its log line carries", async () => {
  const lines: Array<string> = [];
  const response = await Effect.runPromise(
    Effect.die(new Error("boom")).pipe(
      Effect.catchAllCause(internalError("req-500")),
      Effect.annotateLogs({ requestId: "req-500" }), // as the router's run annotates every request
      Effect.provide(Logger.replace(Logger.defaultLogger, makeJsonLogger((l) => lines.push(l)))),
    ),
  );
  assert.equal(response.status, 500);
  assert.deepEqual(await response.json(), {
    error: "Internal Server Error",
    message: "Internal error (request id req-500)",
  });
  const logged = lines.map((l) => JSON.parse(l));
  assert.equal(logged.length, 1);
  assert.equal(logged[0].requestId, "req-500");
  assert.equal(logged[0].level, "error");
  assert.match(JSON.stringify(logged[0]), /boom/);
});
