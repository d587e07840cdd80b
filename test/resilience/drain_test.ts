/**
 * SIGTERM under load drains (issue 14: no graceful drain). Requests in flight when the signal comes complete:
 * made deterministic with requests whose chunked bodies are half sent before the signal and finished after it,
 * which the service must still answer in full (Deno's own server.shutdown() cut them: 400 "not valid JSON").
 * Meanwhile a load of ordinary requests gets full answers, then 503 "shutting down" envelopes, then refused
 * connections once the port closes, never another 5xx; open WebSockets see 1001 "going away"; usage is flushed;
 * the exit code is 0, within a bound: a client that never finishes its request does not hold the process past
 * the 10 s drain (on main it waited for it forever).
 */
import assert from "node:assert/strict";
import { createKey, createTestEnvironment } from "../support/environment.ts";
import { sleep, usageOf } from "../support/private_servers.ts";
import { spawnService } from "../support/service.ts";

const rows = 200;
/** Each one different, so no answer comes from a cache. */
const query = (i: number) =>
  JSON.stringify({
    query: `{ tx_out(order_by: {id: desc}, limit: ${rows}, offset: ${i * 7}) { id value } }`,
  });

const encoder = new TextEncoder();
const chunk = (text: string) => `${encoder.encode(text).length.toString(16)}\r\n${text}\r\n`;

/** A GraphQL POST over a raw connection, its chunked body sent in two halves when asked. */
const openRequest = async (base: string, key: string, body: string) => {
  const { hostname, port } = new URL(base);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const half = Math.floor(body.length / 2);
  await conn.write(encoder.encode(
    `POST /v1/graphql HTTP/1.1\r\nhost: ${hostname}\r\napikey: ${key}\r\nconnection: close\r\n` +
      `content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${chunk(body.slice(0, half))}`,
  ));
  return {
    conn,
    /** Sends the rest and reads the whole answer (the service closes the connection after it). */
    finish: async (): Promise<{ status: number; body: string }> => {
      await conn.write(encoder.encode(`${chunk(body.slice(half))}0\r\n\r\n`));
      const parts: Array<Uint8Array> = [];
      const buffer = new Uint8Array(65_536);
      for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
        parts.push(buffer.slice(0, n));
      }
      conn.close();
      const text = new TextDecoder().decode(new Uint8Array(parts.flatMap((p) => [...p])));
      const [head = "", ...rest] = text.split("\r\n\r\n");
      return { status: Number(head.split(" ")[1]), body: rest.join("\r\n\r\n") };
    },
  };
};

Deno.test({
  name: "SIGTERM under load: in-flight requests finish, new connections refused, WebSockets 1001, usage kept",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const environment = await createTestEnvironment("drain");
    // no rate limit: the load runs flat out, and a 429 is not what this test looks at
    const env = { ...environment.env, RATE_LIMIT_PAID: "0" };
    const service = spawnService(env);
    const conns: Array<Deno.TcpConn> = [];
    try {
      const base = await service.listening;
      const { key, id } = await createKey(env, "--tier", "paid", "--name", "drain");
      const socket = new WebSocket(`${base.replace("http", "ws")}/v1/ogmios?apikey=${key}`);
      const closed = new Promise<CloseEvent>((resolve) => socket.onclose = resolve);
      await new Promise((resolve, reject) => {
        socket.onopen = resolve;
        socket.onerror = reject;
      });
      // a request that never ends: its body is never finished
      const never = await openRequest(base, key, query(99));
      conns.push(never.conn);
      // five requests in flight across the signal
      const inFlight = await Promise.all([0, 1, 2, 3, 4].map((i) => openRequest(base, key, query(i))));
      conns.push(...inFlight.map((r) => r.conn));
      // load: four clients asking in a loop until their connections are refused
      const outcomes: Array<string> = [];
      let loading = true;
      const load = Array.from({ length: 4 }, async () => {
        while (loading) {
          try {
            const r = await fetch(`${base}/v1/key`, { headers: { apikey: key } });
            const body = await r.json();
            outcomes.push(
              r.status === 200 && body.tier !== undefined
                ? "answered"
                : r.status === 503 && body.error === "Service Unavailable" &&
                    body.message === "The service is shutting down; try again shortly"
                ? "draining"
                : `status ${r.status} ${JSON.stringify(body)}`,
            );
          } catch {
            outcomes.push("refused");
            await sleep(50);
          }
        }
      });
      await sleep(500);
      service.kill("SIGTERM");
      const signalled = performance.now();
      await sleep(1_000);
      // the in-flight requests finish their bodies after the signal and get full answers
      const answers = await Promise.all(inFlight.map((r) => r.finish()));
      for (const a of answers) {
        assert.equal(a.status, 200, a.body);
        assert.equal(JSON.parse(a.body).data.tx_out.length, rows);
      }
      // while the unfinished request holds the drain: liveness yes, readiness no
      const health = await fetch(`${base}/health`);
      assert.equal(health.status, 200);
      assert.equal((await health.json()).status, "stopping");
      const ready = await fetch(`${base}/ready`);
      assert.equal(ready.status, 503);
      assert.deepEqual(await ready.json(), {
        error: "Service Unavailable",
        message: "Not ready: shutting down",
      });
      const exit = await Promise.race([service.exited, sleep(20_000).then(() => "still running")]);
      loading = false;
      await Promise.all(load);
      const kinds = new Set(outcomes);
      assert.deepEqual(
        [...kinds].filter((o) => !["answered", "draining", "refused"].includes(o)),
        [],
        "no 5xx",
      );
      assert.ok(kinds.has("answered") && kinds.has("draining"), [...kinds].join());
      const refused = await fetch(`${base}/health`).then(
        (r) => r.body?.cancel().then(() => false),
        () => true,
      );
      assert.ok(refused, "the port is closed");
      const close = await closed;
      assert.equal(close.code, 1001);
      assert.equal(exit, 0, "exits 0 within the drain bound");
      const drainMs = performance.now() - signalled;
      console.log(
        `drained and exited ${drainMs.toFixed(0)} ms after SIGTERM (the unfinished request held it)`,
      );
      assert.ok(drainMs < 15_000, `${drainMs} ms`);
      // every request the service answered or had in flight is counted: the load, the five and the unfinished one
      const answeredLoad = outcomes.filter((o) => o === "answered").length;
      assert.equal(await usageOf(env, id, "graphql"), 6, "usage flushed at shutdown");
      assert.equal(await usageOf(env, id, "account"), answeredLoad);
    } finally {
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      service.kill("SIGKILL");
      await service.exited;
      await environment.close();
    }
  },
});
