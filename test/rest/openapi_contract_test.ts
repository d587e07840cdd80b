/**
 * The wire and its description agree. Against the real service: every response /openapi.json documents (each
 * operation's success and every error status) is provoked and the real answer checked against it (status, media
 * type, body by ajv, documented headers), and every answer's status must be documented for its operation. The
 * document passes Redocly's recommended rules with no error, schemas/openapi.d.ts is what openapi-typescript
 * makes of it today, and a client typed by it (openapi-fetch) calls every REST and explorer endpoint.
 * Outages (chain databases, the key store) are provoked on PostgreSQL only; on PGlite those 503s are listed.
 */
import assert from "node:assert/strict";
import { Effect } from "effect";
import Ajv2020 from "ajv/dist/2020.js";
import { bech32 } from "@scure/base";
import pg from "pg";
import createClient from "openapi-fetch";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import type { paths } from "@schemas/openapi.d.ts";
import { openApiDocument } from "@src/rest/openapi.ts";
import { blockfrostOpenApiDocument, blockfrostOpenApiPath } from "@src/blockfrost/openapi.ts";
import { blockfrostBases } from "@schemas/blockfrost/api.ts";
import { routes } from "@src/server/routes.ts";
import { generatedTypes } from "../../scripts/openapi_types.ts";
import { createKey, createTestEnvironment, keysCli } from "../support/environment.ts";
import { testDatabaseUrl } from "../support/databases.ts";
import { startService } from "../support/service.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Json;
}

/** A real request and the (operation, status) it is meant to provoke. */
interface Probe {
  readonly op: string;
  readonly status: number;
  readonly answer: Answer;
  /** Refused before any key or budget is consulted (a repeated query parameter): no X-RateLimit-* to carry. */
  readonly beforeAccess?: boolean;
}

/** Documented responses no cheap request can provoke, and why. */
const unprovokable: Readonly<Record<string, string>> = {
  "GET /v2/explorer/{network}/stats 404": "answers 404 only for a chain that holds no block yet",
};

/** A CoinGecko-like quote source that fails until told otherwise (the price's 503, then its 200). */
const quoteServer = () => {
  let ok = false;
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    () =>
      ok
        ? Response.json({ cardano: { usd: 0.4321, last_updated_at: 1_795_000_000 } })
        : new Response("down", { status: 502 }),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/api/v3/simple/price?ids=cardano&vs_currencies=usd`,
    recover: () => void (ok = true),
    close: () => server.shutdown(),
  };
};

const randomBytes = (n: number) => crypto.getRandomValues(new Uint8Array(n));
const randomHex = (n: number) => [...randomBytes(n)].map((b) => b.toString(16).padStart(2, "0")).join("");
/** A well-formed mainnet enterprise address no transaction pays. */
const unusedAddress = () =>
  bech32.encode("addr", bech32.toWords(new Uint8Array([0x61, ...randomBytes(28)])), 200);
/** A well-formed API key no one holds. */
const unknownKey = () =>
  `cds_${
    [...randomBytes(32)].map((b) => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345"[b % 58])
      .join("")
  }`;

Deno.test({
  name: "OpenAPI contract: every documented response against the real service, and back",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const quotes = quoteServer();
    const environment = await createTestEnvironment("openapi");
    const cleanups: Array<() => Promise<unknown>> = [() => environment.close(), () => quotes.close()];
    try {
      const sql = async <A extends object>(network: "mainnet" | "preprod", text: string) => {
        const client = await environment.chainSql(network);
        return Effect.runPromise(client.unsafe<A>(text));
      };
      const [pool] = await sql<{ view: string }>("mainnet", "select view from pool_hash order by id limit 1");
      const env: Record<string, string> = {
        ...environment.env,
        POOL_ID: pool!.view,
        PRICE_URL: quotes.url,
        RATE_LIMIT_FREE: "3",
        GRAPHQL_RATE_FREE: "1",
        SUBMISSIONS_PER_HOUR_FREE: "1",
      };
      const service = await startService(env);
      cleanups.unshift(() => service.stop());
      const base = service.base;
      const { key } = await createKey(env, "--tier", "paid", "--name", "openapi paid");
      const { key: freeKey } = await createKey(env, "--tier", "free", "--name", "openapi burst");
      const { key: submitKey } = await createKey(env, "--tier", "free", "--name", "openapi submissions");
      const inactive = await createKey(env, "--tier", "paid", "--name", "openapi inactive");
      assert.equal((await keysCli(env, "deactivate", String(inactive.id))).code, 0);

      const request = async (
        method: string,
        path: string,
        options: { key?: string; body?: string; headers?: Record<string, string> } = {},
      ): Promise<Answer> => {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: { ...(options.key ? { apikey: options.key } : {}), ...options.headers },
          body: options.body,
        });
        const text = await response.text();
        const json = (response.headers.get("content-type") ?? "").startsWith("application/json");
        return { status: response.status, headers: response.headers, body: json ? JSON.parse(text) : text };
      };

      // the price source fails first: the price's 503 (it asks again a minute later, for the 200 at the end)
      const priceDown = await request("GET", "/api/public/price", { key });
      const priceAskedAt = Date.now();
      const probes: Array<Probe> = [{ op: "GET /api/public/price", status: 503, answer: priceDown }];

      const doc: Json = (await request("GET", "/openapi.json")).body;

      await t.step(
        "the served document is the generated one, and Redocly's recommended rules pass",
        async () => {
          assert.deepEqual(doc, JSON.parse(JSON.stringify(openApiDocument)));
          const config = await createConfig({ extends: ["recommended"] });
          const problems = await lintFromString({
            source: JSON.stringify(doc),
            absoluteRef: `${base}/openapi.json`,
            config,
          });
          const errors = problems.filter((p) => p.severity === "error");
          assert.deepEqual(errors.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`), []);
          // warnings left: operations that cannot answer a 4xx (public pages) or a 2xx (the WebSocket's 101), and
          // no licence (the repository states none; the document does not invent one)
          const expected = ["operation-4xx-response", "operation-2xx-response", "info-license"];
          for (const p of problems) assert.ok(expected.includes(p.ruleId), `${p.ruleId}: ${p.message}`);
          const text = JSON.stringify(doc);
          assert.ok(!text.includes("HttpApiDecodeError"), "no Effect-internal error schema");
          assert.ok(
            !/"title":"(minLength|int|pattern|between|greaterThan|lessThan)/.test(text),
            "no refinement titles",
          );
          assert.ok(doc.servers?.length > 0);
          for (const [path, operations] of Object.entries(doc.paths) as Array<[string, Json]>) {
            for (const [method, op] of Object.entries(operations) as Array<[string, Json]>) {
              assert.ok(op.summary && op.operationId, `${method} ${path} has a summary and an operationId`);
              assert.ok(Array.isArray(op.security), `${method} ${path} states its security`);
            }
          }
          for (const name of ["page", "limit", "pageSize"]) {
            const p = doc.paths["/v2/explorer/{network}/dreps"].get.parameters.find((x: Json) =>
              x.name === name
            ) ??
              doc.paths["/v2/explorer/{network}/blocks"].get.parameters.find((x: Json) => x.name === name);
            assert.equal(p.schema.type, "integer", `${name} is an integer`);
          }
        },
      );

      await t.step("schemas/openapi.d.ts is openapi-typescript's output for this document", async () => {
        const committed = await Deno.readTextFile(new URL("../../schemas/openapi.d.ts", import.meta.url));
        assert.ok(committed === await generatedTypes(), "run `npm run openapi:types` and commit the result");
      });

      // sample ids from the chain the service serves
      const [block] = await sql<{ n: number; hash: string }>(
        "mainnet",
        `select block_no as n, encode(hash, 'hex') as hash from block where block_no is not null and tx_count > 1
         order by id desc limit 1`,
      );
      const [tx] = await sql<{ hash: string }>(
        "mainnet",
        "select encode(hash, 'hex') as hash from tx order by id desc limit 1",
      );
      const [address] = await sql<{ address: string }>(
        "mainnet",
        "select address from tx_out where address like 'addr1%' order by id limit 1",
      );
      const [stake] = await sql<{ view: string }>(
        "mainnet",
        "select view from stake_address order by id limit 1",
      );
      const [preprodStake] = await sql<{ view: string }>(
        "preprod",
        "select view from stake_address order by id desc limit 1",
      );

      await t.step(
        "a client typed by schemas/openapi.d.ts calls every REST and explorer endpoint",
        async () => {
          const client = createClient<paths>({ baseUrl: base, headers: { apikey: key } });
          const network = "mainnet" as const;
          const results: Array<[string, number | undefined, unknown]> = [];
          const note = (name: string, r: { response: Response; data?: unknown }) =>
            results.push([name, r.response.status, r.data]);
          note(
            "poolInfo",
            await client.GET("/api/public/pool-info", { params: { query: { poolId: pool!.view, network } } }),
          );
          note("poolStatus", await client.GET("/api/public/pool-status", { params: { query: { network } } }));
          note(
            "stakeAccount",
            await client.GET("/api/public/stake-account", { params: { query: { address: stake!.view } } }),
          );
          note(
            "txStatus",
            await client.GET("/api/public/tx-status", { params: { query: { txHash: tx!.hash } } }),
          );
          note("protocolParameters", await client.GET("/api/public/protocol-parameters", {}));
          const path = { network };
          note(
            "pool",
            await client.GET("/v2/explorer/{network}/pool/{poolId}", {
              params: { path: { network, poolId: pool!.view } },
            }),
          );
          note(
            "address",
            await client.GET("/v2/explorer/{network}/address/{addr}", {
              params: { path: { ...path, addr: address!.address } },
            }),
          );
          note(
            "addressUtxos",
            await client.GET("/v2/explorer/{network}/address/{addr}/utxos", {
              params: { path: { ...path, addr: address!.address }, query: { page: 1, limit: 5 } },
            }),
          );
          note(
            "tx",
            await client.GET("/v2/explorer/{network}/tx/{hash}", {
              params: { path: { ...path, hash: tx!.hash } },
            }),
          );
          const blocks = await client.GET("/v2/explorer/{network}/blocks", {
            params: { path, query: { page: 2, limit: 3 } },
          });
          note("blocks", blocks);
          assert.deepEqual([blocks.data?.page, blocks.data?.pageSize, blocks.data?.data.length], [2, 3, 3]);
          note(
            "block",
            await client.GET("/v2/explorer/{network}/block/{id}", {
              params: { path: { ...path, id: block!.n } },
            }),
          );
          const txs = await client.GET("/v2/explorer/{network}/block/{id}/txs", {
            params: { path: { ...path, id: block!.hash }, query: { page: 2, limit: 1 } },
          });
          note("blockTransactions", txs);
          assert.equal(txs.data?.data[0]?.blockIndex, 1, "page 2 of 1 is the block's second transaction");
          note("stats", await client.GET("/v2/explorer/{network}/stats", { params: { path } }));
          const dreps = await client.GET("/v2/explorer/{network}/dreps", {
            params: { path, query: { page: 1, pageSize: 10, activeOnly: true } },
          });
          note("dreps", dreps);
          assert.ok(dreps.data?.data.every((d) => d.isActive), "activeOnly: true reached the server as true");
          note("keyInfo", await client.GET("/v1/key", {}));
          note("health", await client.GET("/health", {}));
          assert.deepEqual(
            results.filter(([, status, data]) => status !== 200 || data === undefined).map((
              [name, status],
            ) => [name, status]),
            [],
          );
          const info = await client.GET("/v1/key", {});
          assert.equal(info.data?.tier, "PAID");
        },
      );

      const protectedOps = new Set<string>();
      for (const [path, operations] of Object.entries(doc.paths) as Array<[string, Json]>) {
        for (const [method, op] of Object.entries(operations) as Array<[string, Json]>) {
          if (op.security.length > 0) protectedOps.add(`${method.toUpperCase()} ${path}`);
        }
      }

      /** A request that reaches each operation (its 2xx with a good key), by operation. */
      const graphqlQuery = JSON.stringify({ query: "{ block(limit: 1) { block_no } }" });
      const rpc = (method: string, params?: unknown) =>
        JSON.stringify({ jsonrpc: "2.0", method, params, id: 1 });
      const reach: Record<string, { method: string; path: string; body?: string; status: number }> = {
        "GET /api/public/pool-info": {
          method: "GET",
          path: `/api/public/pool-info?poolId=${pool!.view}`,
          status: 200,
        },
        "GET /api/public/pool-status": { method: "GET", path: "/api/public/pool-status", status: 200 },
        "GET /api/public/stake-account": {
          method: "GET",
          path: `/api/public/stake-account?address=${stake!.view}`,
          status: 200,
        },
        "GET /api/public/tx-status": {
          method: "GET",
          path: `/api/public/tx-status?txHash=${tx!.hash}`,
          status: 200,
        },
        "GET /api/public/price": { method: "GET", path: "/api/public/price", status: 503 },
        "GET /api/public/protocol-parameters": {
          method: "GET",
          path: "/api/public/protocol-parameters",
          status: 200,
        },
        "GET /v2/explorer/{network}/pool/{poolId}": {
          method: "GET",
          path: `/v2/explorer/mainnet/pool/${pool!.view}`,
          status: 200,
        },
        "GET /v2/explorer/{network}/address/{addr}": {
          method: "GET",
          path: `/v2/explorer/mainnet/address/${address!.address}`,
          status: 200,
        },
        "GET /v2/explorer/{network}/address/{addr}/utxos": {
          method: "GET",
          path: `/v2/explorer/mainnet/address/${address!.address}/utxos?limit=3`,
          status: 200,
        },
        "GET /v2/explorer/{network}/tx/{hash}": {
          method: "GET",
          path: `/v2/explorer/mainnet/tx/${tx!.hash}`,
          status: 200,
        },
        "GET /v2/explorer/{network}/blocks": {
          method: "GET",
          path: "/v2/explorer/mainnet/blocks?limit=3",
          status: 200,
        },
        "GET /v2/explorer/{network}/block/{id}": {
          method: "GET",
          path: `/v2/explorer/mainnet/block/${block!.hash}`,
          status: 200,
        },
        "GET /v2/explorer/{network}/block/{id}/txs": {
          method: "GET",
          path: `/v2/explorer/mainnet/block/${block!.n}/txs?limit=2`,
          status: 200,
        },
        "GET /v2/explorer/{network}/stats": {
          method: "GET",
          path: "/v2/explorer/preprod/stats",
          status: 200,
        },
        "GET /v2/explorer/{network}/dreps": {
          method: "GET",
          path: "/v2/explorer/mainnet/dreps?pageSize=3",
          status: 200,
        },
        "GET /health": { method: "GET", path: "/health", status: 200 },
        "GET /ready": { method: "GET", path: "/ready", status: 200 },
        "GET /v1/key": { method: "GET", path: "/v1/key", status: 200 },
        "GET /openapi.json": { method: "GET", path: "/openapi.json", status: 200 },
        "POST /v1/graphql": { method: "POST", path: "/v1/graphql", body: graphqlQuery, status: 200 },
        "GET /v1/graphql": { method: "GET", path: "/v1/graphql", status: 200 },
        "GET /v1/graphql/schema.graphql": { method: "GET", path: "/v1/graphql/schema.graphql", status: 200 },
        "POST /v1/preprod/graphql": {
          method: "POST",
          path: "/v1/preprod/graphql",
          body: graphqlQuery,
          status: 200,
        },
        "GET /v1/preprod/graphql": { method: "GET", path: "/v1/preprod/graphql", status: 200 },
        "GET /v1/preprod/graphql/schema.graphql": {
          method: "GET",
          path: "/v1/preprod/graphql/schema.graphql",
          status: 200,
        },
        "POST /v1/ogmios": { method: "POST", path: "/v1/ogmios", body: rpc("queryNetwork/tip"), status: 200 },
        // a GET without the upgrade is refused (400); the 101 is provoked by a real WebSocket below
        "GET /v1/ogmios": { method: "GET", path: "/v1/ogmios", status: 400 },
        "GET /v1/ogmios/health": { method: "GET", path: "/v1/ogmios/health", status: 200 },
        "POST /v1/preprod/ogmios": {
          method: "POST",
          path: "/v1/preprod/ogmios",
          body: rpc("queryNetwork/tip"),
          status: 200,
        },
        "GET /v1/preprod/ogmios": { method: "GET", path: "/v1/preprod/ogmios", status: 400 },
        "GET /v1/preprod/ogmios/health": { method: "GET", path: "/v1/preprod/ogmios/health", status: 200 },
      };
      const documentedOps = Object.entries(doc.paths).flatMap(([path, operations]: [string, Json]) =>
        Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`)
      );
      assert.deepEqual(
        Object.keys(reach).sort(),
        documentedOps.sort(),
        "a request for every documented operation",
      );
      // and the other way: every route the service answers is documented (but the landing page, the docs' and
      // GraphiQL's assets, the operator's /metrics, which is not part of the API: README, Metrics, and the
      // account and key dashboard's HTML pages: src/dashboard/README.md)
      const dashboardPages =
        /^\/(signup|login|logout|forgot-password|reset-password|confirm-email|dashboard)(\/|$)/;
      // The Blockfrost dialect's routes are described by its own document, under each of its base URLs.
      const blockfrostBase = new RegExp(
        `^(${Object.values(blockfrostBases).map((b) => b.replace(/\//g, "\\/")).join("|")})(\/|$)`,
      );
      const operation = (r: { method: string; path: string }) =>
        `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`;
      const served = routes.filter((r) =>
        r.path !== "/" && !/^\/(docs|v1\/graphiql|metrics)(\/|$)/.test(r.path) &&
        !dashboardPages.test(r.path) &&
        !blockfrostBase.test(r.path) && r.path !== blockfrostOpenApiPath
      ).map(operation);
      assert.deepEqual(served.sort(), documentedOps.sort(), "every route is documented");
      const blockfrostServed = routes.filter((r) => blockfrostBase.test(r.path)).map(operation);
      const blockfrostDocumented = Object.values(blockfrostBases).flatMap((base) =>
        Object.entries(blockfrostOpenApiDocument.paths as Record<string, object>).flatMap((
          [path, operations],
        ) =>
          Object.keys(operations).flatMap((method) =>
            (path === "/" ? [base, `${base}/`] : [`${base}${path}`]).map((p) =>
              `${method.toUpperCase()} ${p}`
            )
          )
        )
      );
      assert.deepEqual(
        [...new Set(blockfrostServed)].sort(),
        blockfrostDocumented.sort(),
        "every Blockfrost route is in the dialect's document",
      );

      /** A WebSocket handshake by hand, to read what a WebSocket client hides: its status line and headers. */
      const upgrade = async (path: string, apikey: string): Promise<Answer> => {
        const { hostname, port } = new URL(base);
        const conn = await Deno.connect({ hostname, port: Number(port) });
        try {
          const nonce = btoa(String.fromCharCode(...randomBytes(16)));
          await conn.write(new TextEncoder().encode(
            `GET ${path}?apikey=${apikey} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\n` +
              `Connection: Upgrade\r\nSec-WebSocket-Key: ${nonce}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
          ));
          let head = "";
          const buffer = new Uint8Array(4096);
          while (!head.includes("\r\n\r\n")) {
            const n = await conn.read(buffer);
            if (n === null) break;
            head += new TextDecoder().decode(buffer.subarray(0, n));
          }
          const [statusLine, ...lines] = head.slice(0, head.indexOf("\r\n\r\n")).split("\r\n");
          const headers = new Headers(
            lines.map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()]),
          );
          return { status: Number(statusLine!.split(" ")[1]), headers, body: "" };
        } finally {
          conn.close();
        }
      };

      const probe = async (op: string, status: number, answer: Promise<Answer> | Answer) => {
        const a = await answer;
        probes.push({ op, status, answer: a });
        return a;
      };

      await t.step("successes, 304s and the WebSocket's 101", async () => {
        for (const [op, r] of Object.entries(reach)) {
          const a = await probe(op, r.status, request(r.method, r.path, { key, body: r.body }));
          const etag = a.headers.get("etag");
          if (etag && doc.paths[op.split(" ")[1]!].get?.responses["304"]) {
            await probe(op, 304, request(r.method, r.path, { key, headers: { "if-none-match": etag } }));
          }
        }
        for (
          const [op, path] of [
            ["GET /v1/ogmios", "/v1/ogmios"],
            ["GET /v1/preprod/ogmios", "/v1/preprod/ogmios"],
          ] as const
        ) {
          const a = await probe(op, 101, upgrade(path, key));
          assert.equal(
            a.headers.get("upgrade")?.toLowerCase(),
            "websocket",
            `${path} switches to a WebSocket`,
          );
        }
      });

      await t.step("400s: malformed parameters and bodies", async () => {
        const bad: Array<[string, string, string, string?]> = [
          ["GET /api/public/pool-info", "GET", "/api/public/pool-info?poolId=pool1nope"],
          ["GET /api/public/pool-status", "GET", "/api/public/pool-status?network=testnet"],
          ["GET /api/public/stake-account", "GET", "/api/public/stake-account?address=stake1nope"],
          ["GET /api/public/tx-status", "GET", "/api/public/tx-status?txHash=xyz"],
          ["GET /api/public/protocol-parameters", "GET", "/api/public/protocol-parameters?network=x"],
          ["GET /v2/explorer/{network}/pool/{poolId}", "GET", "/v2/explorer/mainnet/pool/nope"],
          ["GET /v2/explorer/{network}/address/{addr}", "GET", "/v2/explorer/mainnet/address/addr1nope"],
          [
            "GET /v2/explorer/{network}/address/{addr}/utxos",
            "GET",
            `/v2/explorer/mainnet/address/${address!.address}/utxos?page=0`,
          ],
          ["GET /v2/explorer/{network}/tx/{hash}", "GET", "/v2/explorer/mainnet/tx/ABC"],
          ["GET /v2/explorer/{network}/blocks", "GET", "/v2/explorer/mainnet/blocks?limit=101"],
          ["GET /v2/explorer/{network}/block/{id}", "GET", "/v2/explorer/mainnet/block/x"],
          [
            "GET /v2/explorer/{network}/block/{id}/txs",
            "GET",
            `/v2/explorer/mainnet/block/${block!.n}/txs?limit=two`,
          ],
          ["GET /v2/explorer/{network}/stats", "GET", "/v2/explorer/testnet/stats"],
          ["GET /v2/explorer/{network}/dreps", "GET", "/v2/explorer/mainnet/dreps?activeOnly=maybe"],
          ["POST /v1/graphql", "POST", "/v1/graphql", "{not json"],
          ["POST /v1/preprod/graphql", "POST", "/v1/preprod/graphql", JSON.stringify({ variables: {} })],
          ["POST /v1/ogmios", "POST", "/v1/ogmios", rpc("noSuchMethod")],
          ["POST /v1/preprod/ogmios", "POST", "/v1/preprod/ogmios", "{"],
        ];
        for (const [op, method, path, body] of bad) {
          await probe(op, 400, request(method, path, { key, body }));
        }
      });

      await t.step("400s: a repeated query parameter, on every operation", async () => {
        for (const [op, r] of Object.entries(reach)) {
          const path = `${r.path}${r.path.includes("?") ? "&" : "?"}x=1&x=2`;
          const answer = await request(r.method, path, { key, body: r.body });
          probes.push({ op, status: 400, answer, beforeAccess: true });
        }
      });

      await t.step("413s: bodies over MAX_BODY_BYTES", async () => {
        const huge = JSON.stringify({ query: `{ block { block_no } }${" ".repeat(1 << 20)}` });
        for (const path of ["/v1/graphql", "/v1/preprod/graphql", "/v1/ogmios", "/v1/preprod/ogmios"]) {
          await probe(`POST ${path}`, 413, request("POST", path, { key, body: huge }));
        }
      });

      await t.step("404s: things that do not exist", async () => {
        const nobody = unusedAddress();
        const noPool = bech32.encode("pool", bech32.toWords(randomBytes(28)));
        const missing: Array<[string, string]> = [
          ["GET /api/public/pool-info", `/api/public/pool-info?poolId=${noPool}`],
          ["GET /api/public/pool-status", "/api/public/pool-status?network=preprod"],
          ["GET /v2/explorer/{network}/pool/{poolId}", `/v2/explorer/mainnet/pool/${noPool}`],
          ["GET /v2/explorer/{network}/address/{addr}", `/v2/explorer/mainnet/address/${nobody}`],
          ["GET /v2/explorer/{network}/tx/{hash}", `/v2/explorer/mainnet/tx/${randomHex(32)}`],
          ["GET /v2/explorer/{network}/block/{id}", "/v2/explorer/mainnet/block/99999999"],
          ["GET /v2/explorer/{network}/block/{id}/txs", `/v2/explorer/mainnet/block/${randomHex(32)}/txs`],
        ];
        for (const [op, path] of missing) await probe(op, 404, request("GET", path, { key }));
      });

      await t.step(
        "401 (no key, unknown key), 403 (inactive key), 429 (past the rate) on every keyed operation",
        async () => {
          for (const op of protectedOps) {
            const r = reach[op]!;
            await probe(op, 401, request(r.method, r.path, { body: r.body }));
            await probe(op, 401, request(r.method, r.path, { key: unknownKey(), body: r.body }));
            await probe(op, 403, request(r.method, r.path, { key: inactive.key, body: r.body }));
            // FREE: 3 requests a second (GraphQL: 1); a burst of 6 meets the limit
            const burst = await Promise.all(
              Array.from({ length: 6 }, () => request(r.method, r.path, { key: freeKey, body: r.body })),
            );
            const limited = burst.find((a) => a.status === 429);
            assert.ok(limited, `${op}: a burst past the FREE rate meets 429 (${burst.map((a) => a.status)})`);
            await probe(op, 429, limited);
            await new Promise((resolve) => setTimeout(resolve, 1_100)); // the next operation starts with a fresh window
          }
          // JSON-RPC's own 429: the hourly submission budget (FREE: 1 here), as a -32029 error reply
          for (
            const [op, path] of [
              ["POST /v1/ogmios", "/v1/ogmios"],
              ["POST /v1/preprod/ogmios", "/v1/preprod/ogmios"],
            ] as const
          ) {
            const submit = rpc("submitTransaction", { transaction: { cbor: "00" } });
            await request("POST", path, { key: submitKey, body: submit });
            const a = await probe(op, 429, request("POST", path, { key: submitKey, body: submit }));
            assert.equal(a.body.error?.code, -32029, JSON.stringify(a.body));
            await new Promise((resolve) => setTimeout(resolve, 1_100));
          }
        },
      );

      if (testDatabaseUrl) {
        const admin = new pg.Client({ connectionString: testDatabaseUrl });
        await admin.connect();
        const names = ["MAINNET", "PREPROD", "SERVICE"].map((n) =>
          new URL(env[`${n}_DATABASE_URL`]!).pathname.slice(1)
        );
        const allow = async (name: string, allowed: boolean) => {
          await admin.query(`alter database "${name}" allow_connections ${allowed}`);
          if (!allowed) {
            await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1", [
              name,
            ]);
          }
        };
        cleanups.unshift(async () => {
          for (const name of names) await allow(name, true);
          await admin.end();
        });

        await t.step(
          "503s: the chain databases go away (answers never computed before, so no cache holds them)",
          async () => {
            await allow(names[0]!, false);
            await allow(names[1]!, false);
            const down: Array<[string, string, string?]> = [
              ["GET /api/public/pool-info", `/api/public/pool-info?poolId=${pool!.view}&network=preprod`],
              ["GET /api/public/pool-status", "/api/public/pool-status"],
              ["GET /api/public/stake-account", `/api/public/stake-account?address=${preprodStake!.view}`],
              ["GET /api/public/tx-status", `/api/public/tx-status?txHash=${randomHex(32)}`],
              ["GET /api/public/protocol-parameters", "/api/public/protocol-parameters?network=preprod"],
              ["GET /v2/explorer/{network}/pool/{poolId}", `/v2/explorer/preprod/pool/${pool!.view}`],
              [
                "GET /v2/explorer/{network}/address/{addr}",
                `/v2/explorer/mainnet/address/${unusedAddress()}`,
              ],
              [
                "GET /v2/explorer/{network}/address/{addr}/utxos",
                `/v2/explorer/mainnet/address/${address!.address}/utxos?page=7`,
              ],
              ["GET /v2/explorer/{network}/tx/{hash}", `/v2/explorer/mainnet/tx/${randomHex(32)}`],
              ["GET /v2/explorer/{network}/blocks", "/v2/explorer/mainnet/blocks?page=7&limit=7"],
              ["GET /v2/explorer/{network}/block/{id}", "/v2/explorer/mainnet/block/77777777"],
              ["GET /v2/explorer/{network}/block/{id}/txs", "/v2/explorer/mainnet/block/77777777/txs"],
              ["GET /v2/explorer/{network}/stats", "/v2/explorer/mainnet/stats"],
              ["GET /v2/explorer/{network}/dreps", "/v2/explorer/mainnet/dreps?page=7"],
              ["GET /v1/ogmios/health", "/v1/ogmios/health"],
              ["GET /v1/preprod/ogmios/health", "/v1/preprod/ogmios/health"],
            ];
            for (const [op, path] of down) {
              const a = await probe(op, 503, request("GET", path, { key }));
              assert.equal(a.status, 503, `${path}: ${JSON.stringify(a.body)}`);
            }
            // readiness follows its own probes (once a second): 503 within a few seconds of the loss
            const deadline = Date.now() + 8_000;
            while ((await fetch(`${base}/ready`).then((r) => (r.body?.cancel(), r.status))) !== 503) {
              assert.ok(Date.now() < deadline, "/ready still 200 8 s after the databases went away");
              await new Promise((resolve) => setTimeout(resolve, 250));
            }
            await probe("GET /ready", 503, request("GET", "/ready", {}));
          },
        );

        await t.step("503s: the key store goes away (a key not cached yet must be looked up)", async () => {
          await allow(names[2]!, false);
          for (const op of protectedOps) {
            const r = reach[op]!;
            if (probes.some((p) => p.op === op && p.answer.status === 503)) continue;
            await probe(op, 503, request(r.method, r.path, { key: unknownKey(), body: r.body }));
          }
        });
      }

      await t.step("the price once its source answers (it asks again after a minute)", async () => {
        quotes.recover();
        const wait = priceAskedAt + 61_000 - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const a = await probe("GET /api/public/price", 200, request("GET", "/api/public/price", { key }));
        const etag = a.headers.get("etag")!;
        await probe(
          "GET /api/public/price",
          304,
          request("GET", "/api/public/price", { key, headers: { "if-none-match": etag } }),
        );
        const client = createClient<paths>({ baseUrl: base, headers: { apikey: key } });
        const price = await client.GET("/api/public/price", {});
        assert.equal(price.data?.ada_usd, 0.4321);
      });

      await t.step("every answer is documented for its operation and matches what the document says", () => {
        // deno-lint-ignore no-explicit-any
        const ajv = new (Ajv2020 as any)({ strict: false, validateFormats: false, allErrors: false });
        ajv.addSchema({ $id: "openapi", components: doc.components });
        const refs = (schema: Json): Json =>
          JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
        const header = (h: Json) => (h.$ref ? doc.components.headers[h.$ref.split("/").pop()] : h);
        const problems: Array<string> = [];
        for (const { op, status, answer, beforeAccess } of probes) {
          const where = `${op} → ${answer.status}`;
          if (answer.status !== status) {
            problems.push(
              `${where}: meant to provoke ${status} (${JSON.stringify(answer.body).slice(0, 200)})`,
            );
            continue;
          }
          const [method, path] = op.split(" ") as [string, string];
          const response = doc.paths[path]?.[method.toLowerCase()]?.responses[String(status)];
          if (!response) {
            problems.push(`${where}: status not documented`);
            continue;
          }
          const contentType = answer.headers.get("content-type") ?? "";
          const media = Object.keys(response.content ?? {});
          if (media.length === 0) {
            if (answer.body !== "") problems.push(`${where}: documented without a body, answered one`);
          } else if (!media.some((m) => contentType.startsWith(m))) {
            problems.push(`${where}: ${contentType} is not ${media.join(" or ")}`);
          } else if (contentType.startsWith("application/json")) {
            const validate = ajv.compile(refs(response.content["application/json"].schema));
            if (!validate(answer.body)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
          } else if (typeof answer.body !== "string" || answer.body.length === 0) {
            problems.push(`${where}: an empty ${contentType} body`);
          }
          for (const [name, h] of Object.entries(response.headers ?? {}) as Array<[string, Json]>) {
            const value = answer.headers.get(name);
            if (value === null) continue;
            if (header(h).schema.type === "integer" && !/^\d+$/.test(value)) {
              problems.push(`${where}: header ${name}=${value} is not an integer`);
            }
          }
          // a granted request carries its budget (refusals before a budget was consulted do not)
          const granted = [200, 304, 400, 404, 429].includes(status);
          if (protectedOps.has(op) && granted && !beforeAccess && !answer.headers.has("x-ratelimit-limit")) {
            problems.push(`${where}: no X-RateLimit-Limit`);
          }
          // every 429 says when to come back: the access envelope, GraphQL's errors, JSON-RPC's -32029
          if (status === 429 && !answer.headers.has("retry-after")) {
            problems.push(`${where}: no Retry-After`);
          }
        }
        assert.deepEqual(problems, []);
      });

      await t.step("every documented response was met by a real answer", () => {
        const met = new Set(probes.map((p) => `${p.op} ${p.answer.status}`));
        const missing: Array<string> = [];
        for (const [path, operations] of Object.entries(doc.paths) as Array<[string, Json]>) {
          for (const [method, op] of Object.entries(operations) as Array<[string, Json]>) {
            for (const status of Object.keys(op.responses)) {
              const id = `${method.toUpperCase()} ${path} ${status}`;
              if (!met.has(id)) missing.push(id);
            }
          }
        }
        // without PostgreSQL no database can be taken away under the running service
        const outages = testDatabaseUrl ? [] : missing.filter((id) => id.endsWith(" 503"));
        assert.deepEqual(
          missing.filter((id) => !outages.includes(id)).sort(),
          Object.keys(unprovokable).sort(),
        );
        if (outages.length > 0) {
          console.log(`not provoked on PGlite (outages need PostgreSQL): ${outages.length} 503s`);
        }
      });
    } finally {
      for (const cleanup of cleanups) await cleanup().catch((e) => console.error(e));
    }
  },
});
