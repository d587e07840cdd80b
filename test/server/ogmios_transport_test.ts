/**
 * The JSON-RPC transports of `/v1/ogmios` (HTTP and WebSocket): replies carry `method` and the `id` verbatim,
 * malformed frames get standard codes and the connection survives them, WebSocket messages count against the
 * key both ways (-32029 with retryAfter and remaining, connection kept), a revoked key ends the connection, and
 * the official @cardano-ogmios/client works against the endpoint for the ledger queries served so far.
 */
import assert from "node:assert/strict";
import { createInteractionContext, createLedgerStateQueryClient } from "@cardano-ogmios/client";
import { WebSocket } from "ws";
import { startService } from "../support/service.ts";
import { createKey, createTestEnvironment, keysCli } from "../support/environment.ts";
import { assertMatchesOgmiosSchema } from "../support/ogmios_schema.ts";

const post = async (base: string, key: string, body: string, path = "/v1/ogmios") => {
  const r = await fetch(`${base}${path}`, { method: "POST", headers: { apikey: key }, body });
  return { status: r.status, body: await r.json() };
};

/** A WebSocket that collects replies; `next()` waits for the following one. */
const connect = async (url: string) => {
  const socket = new WebSocket(url);
  const replies: Array<unknown> = [];
  const waiters: Array<(v: unknown) => void> = [];
  socket.on("message", (data) => {
    const value = JSON.parse(String(data));
    const waiter = waiters.shift();
    if (waiter) waiter(value);
    else replies.push(value);
  });
  const closed = new Promise<number>((resolve) => socket.on("close", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    socket.on("open", () => resolve());
    socket.on("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    socket.on("error", reject);
  });
  return {
    send: (frame: unknown) => socket.send(typeof frame === "string" ? frame : JSON.stringify(frame)),
    // deno-lint-ignore no-explicit-any
    next: (): Promise<any> =>
      replies.length > 0 ? Promise.resolve(replies.shift()) : new Promise((r) => waiters.push(r)),
    close: () => socket.close(),
    closed,
  };
};

Deno.test({
  name: "ogmios transports",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const environment = await createTestEnvironment("ogmios");
    const env = { ...environment.env, RATE_LIMIT_FREE: "8" };
    const service = await startService(env);
    const ws = service.base.replace("http", "ws");
    try {
      const paid = await createKey(env, "--tier", "paid", "--name", "ogmios");
      const health = await (await fetch(`${service.base}/v1/ogmios/health`)).json();

      await t.step(
        "HTTP: results and errors carry method and the id verbatim; errors answer 400",
        async () => {
          for (const id of [{ requestId: "abc" }, "x", 7, null]) {
            const r = await post(
              service.base,
              paid.key,
              JSON.stringify({ jsonrpc: "2.0", method: "queryNetwork/tip", id }),
            );
            assert.equal(r.status, 200);
            assert.deepEqual(r.body, {
              jsonrpc: "2.0",
              method: "queryNetwork/tip",
              result: { slot: health.lastKnownTip.slot, id: health.lastKnownTip.id },
              id,
            });
          }
          // the spec: a request without id is malformed; over HTTP for every method
          for (const method of ["queryLedgerState/epoch", "submitTransaction", "nextBlock"]) {
            const noId = await post(service.base, paid.key, JSON.stringify({ jsonrpc: "2.0", method }));
            assert.equal(noId.status, 400);
            assert.equal(noId.body.error.code, -32600, method);
            assert.match(noId.body.error.message, /'id' is required/);
            assert.deepEqual([noId.body.method, noId.body.id], [method, null]);
          }
          const preprod = await post(
            service.base,
            paid.key,
            '{"jsonrpc":"2.0","method":"queryNetwork/blockHeight","id":1}',
            "/v1/preprod/ogmios",
          );
          assert.equal(typeof preprod.body.result, "number");
          const cases: Array<[string, number, RegExp]> = [
            ["{oops", -32700, /^Parse error: invalid JSON received/],
            ["[1,2]", -32600, /batches are not supported/],
            ['"text"', -32600, /must be a JSON object/],
            ['{"method":"queryNetwork/tip","id":1}', -32600, /'jsonrpc' must be "2\.0"/],
            ['{"jsonrpc":"2.0","id":1}', -32600, /'method' must be a string/],
            [
              '{"jsonrpc":"2.0","method":"querynetwork/tip","id":1}',
              -32601,
              /Method not found: 'querynetwork\/tip'/,
            ],
            [
              '{"jsonrpc":"2.0","method":"queryNetwork/tip","params":[1],"id":1}',
              -32602,
              /'params' must be an object/,
            ],
          ];
          for (const [body, code, message] of cases) {
            const r = await post(service.base, paid.key, body);
            assert.equal(r.status, 400, body);
            assert.equal(r.body.error.code, code, body);
            assert.match(r.body.error.message, message);
          }
        },
      );

      await t.step("every result validates against Ogmios' JSON schema", async () => {
        const methods: Array<[string, string]> = [
          ["queryNetwork/tip", "QueryNetworkTipResponse"],
          ["queryLedgerState/tip", "QueryLedgerStateTipResponse"],
          ["queryNetwork/blockHeight", "QueryNetworkBlockHeightResponse"],
          ["queryNetwork/startTime", "QueryNetworkStartTimeResponse"],
          ["queryLedgerState/epoch", "QueryLedgerStateEpochResponse"],
        ];
        for (const [method, response] of methods) {
          const r = await post(
            service.base,
            paid.key,
            JSON.stringify({ jsonrpc: "2.0", method, id: { requestId: "s" } }),
          );
          await assertMatchesOgmiosSchema(`ogmios.json#/properties/${response}`, r.body);
        }
      });

      await t.step("WebSocket: the key is required in the apikey query parameter", async () => {
        await assert.rejects(connect(`${ws}/v1/ogmios`), /HTTP 401/);
        await assert.rejects(connect(`${ws}/v1/ogmios?apikey=nope`), /HTTP 401/);
      });

      await t.step(
        "WebSocket: replies in order, ids echoed, malformed frames answered, connection kept",
        async () => {
          const c = await connect(`${ws}/v1/ogmios?apikey=${paid.key}`);
          c.send({ jsonrpc: "2.0", method: "queryNetwork/tip", id: { requestId: "1" } });
          c.send("not json");
          c.send({ jsonrpc: "2.0", method: "nope", id: 3 });
          c.send({ jsonrpc: "2.0", method: "queryLedgerState/epoch" });
          c.send({ jsonrpc: "2.0", method: "queryLedgerState/epoch", id: null });
          assert.deepEqual((await c.next()).id, { requestId: "1" });
          assert.equal((await c.next()).error.code, -32700);
          const missing = await c.next();
          assert.deepEqual([missing.error.code, missing.method, missing.id], [-32601, "nope", 3]);
          // without an id: malformed (the spec), and the connection goes on
          const noId = await c.next();
          assert.deepEqual([noId.error.code, noId.method, noId.id], [-32600, "queryLedgerState/epoch", null]);
          assert.match(noId.error.message, /'id' is required/);
          // an id that is null is an id, echoed
          assert.deepEqual(await c.next(), {
            jsonrpc: "2.0",
            method: "queryLedgerState/epoch",
            result: 5,
            id: null,
          });
          c.close();
        },
      );

      await t.step(
        "WebSocket: messages count both ways; past the limit -32029 and the connection stays",
        async () => {
          const free = await createKey(env, "--tier", "free", "--name", "ws limits");
          await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 30));
          const c = await connect(`${ws}/v1/ogmios?apikey=${free.key}`);
          // budget 8 a second: the upgrade 1, then each request 1 and each reply 1
          const replies = [];
          for (let i = 0; i < 5; i++) {
            c.send({ jsonrpc: "2.0", method: "queryNetwork/blockHeight", id: i });
            replies.push(await c.next());
          }
          const ok = replies.filter((r) => "result" in r).length;
          const limited = replies.filter((r) => r.error?.code === -32029);
          assert.ok(ok >= 2 && ok <= 4 && limited.length >= 1, JSON.stringify(replies));
          const first = limited[0];
          assert.equal(first.method, "queryNetwork/blockHeight");
          assert.equal(first.error.message, "Rate limit exceeded. Please slow down.");
          assert.ok(first.error.data.retryAfter > 0 && first.error.data.retryAfter <= 1000);
          assert.equal(first.error.data.remaining, 0);
          await new Promise((r) => setTimeout(r, 1100));
          c.send({ jsonrpc: "2.0", method: "queryNetwork/blockHeight", id: "again" });
          assert.equal(typeof (await c.next()).result, "number", "the connection survived the limit");
          c.close();
        },
      );

      await t.step("WebSocket: a revoked key ends an open connection, idle or not", async () => {
        const k = await createKey(env, "--tier", "paid", "--name", "to revoke");
        const c = await connect(`${ws}/v1/ogmios?apikey=${k.key}`);
        assert.equal((await keysCli(env, "revoke", String(k.id))).code, 0);
        // the key is watched: the connection closes without waiting for a message (test/resilience times it)
        const code = await Promise.race([
          c.closed,
          new Promise((r) => setTimeout(() => r("still open"), 3000)),
        ]);
        assert.equal(code, 1008);
      });

      await t.step(
        "the official @cardano-ogmios/client queries tip, epoch, height and start time",
        async () => {
          const context = await createInteractionContext(() => {}, () => {}, {
            connection: {
              address: { http: `${service.base}/v1/ogmios`, webSocket: `${ws}/v1/ogmios?apikey=${paid.key}` },
            },
          });
          const client = await createLedgerStateQueryClient(context);
          try {
            assert.deepEqual(await client.networkTip(), {
              slot: health.lastKnownTip.slot,
              id: health.lastKnownTip.id,
            });
            assert.deepEqual(await client.ledgerTip(), {
              slot: health.lastKnownTip.slot,
              id: health.lastKnownTip.id,
            });
            assert.equal(await client.epoch(), 5);
            assert.equal(await client.networkBlockHeight(), health.lastKnownTip.height);
            assert.equal(
              new Date(await client.networkStartTime() as unknown as string).toISOString(),
              health.startTime,
            );
          } finally {
            await client.shutdown();
          }
          // the client's documented quirk: the key in the HTTP address turns the health URL into ?apikey=KEY/health
          const quirk = await fetch(`${service.base}/v1/ogmios?apikey=${paid.key}/health`);
          assert.equal((await quirk.json()).lastTipUpdate, health.lastTipUpdate);
        },
      );
    } finally {
      await service.stop();
      await environment.close();
    }
  },
});
