/**
 * Input limits against the running service (issue 14, items 3 and 5): bodies capped while they stream, with
 * /health answering meanwhile and the service's memory flat; WebSocket messages capped (1009); huge JSON-RPC ids
 * and method names not echoed; static assets matched by real name only; failed authentication throttled per
 * address; unknown keys remembered as unknown without hiding a key created just after; a revoked, deactivated or
 * expired key ending an idle WebSocket within a second. On PostgreSQL the service database's transaction count
 * shows how many key reads a flood of random keys costs.
 */
import assert from "node:assert/strict";
import pg from "pg";
import { startService } from "../support/service.ts";
import { createKey, createTestEnvironment, keysCli, type TestEnvironment } from "../support/environment.ts";
import { assertHealthKeptUp, describeLatency } from "../support/health_latency.ts";

const mib = 1024 * 1024;
const limit = mib; // MAX_BODY_BYTES' default

/** The service's resident memory in bytes, from /proc. */
const rssOf = async (pid: number): Promise<number> => {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(status.match(/VmRSS:\s+(\d+) kB/)![1]) * 1024;
};

/** CPU seconds the service has used (user + system), from /proc. */
const cpuOf = async (pid: number): Promise<number> => {
  const fields = (await Deno.readTextFile(`/proc/${pid}/stat`)).split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100 a second)
};

/**
 * POSTs a chunked body of `bytes` spaces over a raw connection, 64 KiB a chunk, until the body is sent, its answer
 * has come or the server closes the connection (a client stops sending once it has its answer); returns the
 * answer and how much was sent before it came.
 */
const postChunked = async (base: string, path: string, key: string, bytes: number) => {
  const { hostname, port } = new URL(base);
  const started = performance.now();
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const encoder = new TextEncoder();
  const chunk = encoder.encode(`10000\r\n${" ".repeat(65_536)}\r\n`);
  let written = 0;
  let answered = false;
  try {
    const answer = (async () => {
      const parts: Array<Uint8Array> = [];
      const buffer = new Uint8Array(65_536);
      for (;;) {
        const n = await conn.read(buffer).catch(() => null);
        if (n === null) break;
        parts.push(buffer.slice(0, n));
        const text = new TextDecoder().decode(concat(parts));
        const end = text.indexOf("\r\n\r\n");
        const length = text.match(/\r\ncontent-length: (\d+)/i);
        if (end >= 0 && length && text.length >= end + 4 + Number(length[1])) return text;
      }
      return new TextDecoder().decode(concat(parts));
    })().finally(() => answered = true);
    await conn.write(encoder.encode(
      `POST ${path} HTTP/1.1\r\nhost: ${hostname}\r\napikey: ${key}\r\n` +
        `content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`,
    ));
    try {
      while (written < bytes && !answered) {
        await conn.write(chunk);
        written += 65_536;
        // writes the socket takes at once settle without a turn of the event loop: give the reader one per MiB
        if (written % mib === 0) await new Promise((resolve) => setTimeout(resolve, 0));
      }
      if (!answered) await conn.write(encoder.encode("0\r\n\r\n"));
    } catch { /* the server closed the connection: it stopped reading */ }
    const text = await answer;
    const end = text.indexOf("\r\n\r\n");
    return {
      status: Number(text.slice(9, 12)),
      body: JSON.parse(text.slice(end + 4)),
      ms: performance.now() - started,
      written,
    };
  } finally {
    conn.close();
  }
};

const concat = (parts: ReadonlyArray<Uint8Array>) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.byteLength;
  }
  return out;
};

/** Polls /health every 20 ms until `stop` resolves; returns every latency. */
const healthDuring = async (base: string, stop: Promise<unknown>) => {
  const latencies: Array<number> = [];
  let done = false;
  stop.finally(() => done = true);
  while (!done) {
    const started = performance.now();
    const response = await fetch(`${base}/health`);
    await response.body?.cancel();
    latencies.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 20));
  }
  return latencies;
};

/** A raw WebSocket (Deno's own) that reports its close code and reason. */
const openSocket = async (url: string) => {
  const socket = new WebSocket(url);
  const messages: Array<string> = [];
  const closed = new Promise<{ code: number; reason: string; at: number }>((resolve) =>
    socket.addEventListener(
      "close",
      (e) => resolve({ code: e.code, reason: e.reason, at: performance.now() }),
    )
  );
  socket.addEventListener("message", (e) => messages.push(String(e.data)));
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  const next = async (ms = 10_000): Promise<string> => {
    const started = performance.now();
    while (messages.length === 0) {
      if (performance.now() - started > ms) throw new Error(`no message within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return messages.shift()!;
  };
  return { socket, closed, next };
};

const closedWithin = <T>(closed: Promise<T>, ms: number): Promise<T> =>
  Promise.race([
    closed,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`still open after ${ms} ms`)), ms)),
  ]);

const randomKey = () => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return "cds_" + Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => alphabet[b % 62]).join("");
};

/** Runs `task` over `items`, `width` at a time. */
const pooled = async <T, R>(items: ReadonlyArray<T>, width: number, task: (item: T) => Promise<R>) => {
  const results: Array<R> = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]!);
    }
  }));
  return results;
};

const statusOf = async (base: string, key: string) => {
  const response = await fetch(`${base}/v1/key`, { headers: { apikey: key } });
  const body = await response.json();
  return { status: response.status, body, retryAfter: response.headers.get("retry-after") };
};

/**
 * Waits until PostgreSQL has published every backend's statistics (an idle backend may hold them for up to 10 s,
 * PGSTAT_IDLE_INTERVAL); nothing to wait for on PGlite.
 */
const settleStatistics = (env: Record<string, string>) =>
  env.SERVICE_DATABASE_URL ? new Promise((r) => setTimeout(r, 11_000)) : Promise.resolve();

/** On PostgreSQL, the service database's committed transactions (every key read is one); undefined on PGlite. */
const serviceTransactions = async (env: Record<string, string>): Promise<number | undefined> => {
  if (!env.SERVICE_DATABASE_URL) return undefined;
  const client = new pg.Client({ connectionString: env.SERVICE_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query(
      "select xact_commit::text as n from pg_stat_database where datname = current_database()",
    );
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
};

Deno.test({
  name: "input limits: bodies, frames, ids, assets, revocation, unknown keys",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const environment: TestEnvironment = await createTestEnvironment("input_limits");
    // the failed-authentication throttle is off here (it is tested below, on its own instance), and so are the
    // PAID key's rates: the floods here must meet the body limit, not the rate limit
    const env = {
      ...environment.env,
      AUTH_FAILURES_PER_10S: "0",
      RATE_LIMIT_PAID: "0",
      GRAPHQL_RATE_PAID: "0",
    };
    const service = await startService(env);
    const ws = service.base.replace(/^http/, "ws");
    try {
      const { key, id: keyId } = await createKey(env, "--tier", "paid", "--name", "limits");

      await t.step("a declared Content-Length over the limit: 413 before any body byte is read", async () => {
        const { hostname, port } = new URL(service.base);
        const conn = await Deno.connect({ hostname, port: Number(port) });
        try {
          const started = performance.now();
          await conn.write(new TextEncoder().encode(
            `POST /v1/graphql HTTP/1.1\r\nhost: ${hostname}\r\napikey: ${key}\r\n` +
              `content-type: application/json\r\ncontent-length: ${50 * mib}\r\n\r\n{"query":`,
          ));
          // the answer may arrive in more than one read (its head, then its body): read until the body is whole
          let head = "";
          const buffer = new Uint8Array(4096);
          for (let i = 0; i < 64; i++) {
            const n = await conn.read(buffer);
            if (n === null) break;
            head += new TextDecoder().decode(buffer.subarray(0, n));
            const [top, body = ""] = head.split("\r\n\r\n", 2);
            const length = Number(top!.match(/content-length: (\d+)/i)?.[1] ?? NaN);
            if (head.includes("\r\n\r\n") && new TextEncoder().encode(body).length >= length) break;
          }
          assert.match(head, /^HTTP\/1\.1 413/, head);
          assert.match(head, /larger than the limit of 1048576 bytes/);
          assert.ok(performance.now() - started < 2000);
        } finally {
          conn.close();
        }
      });

      await t.step("chunked 50 MB bodies: 413 while streaming, memory flat, /health fast", async () => {
        const paths = ["/v1/graphql", "/v1/ogmios", "/v1/preprod/graphql"];
        const round = (bytes: number) =>
          Promise.all(paths.map((path) => postChunked(service.base, path, key, bytes)));
        /** Runs `work` while sampling the service's RSS every 10 ms; returns its result and the peak growth. */
        const measured = async <T>(work: () => Promise<T>) => {
          const before = await rssOf(service.pid);
          let peak = before;
          let sampling = true;
          const sampler = (async () => {
            while (sampling) {
              peak = Math.max(peak, await rssOf(service.pid));
              await new Promise((r) => setTimeout(r, 10));
            }
          })();
          try {
            return { result: await work(), before, grownMb: (peak - before) / mib };
          } finally {
            sampling = false;
            await sampler;
          }
        };
        // first a few bodies just over the limit: what the service allocates once (buffers, compiled code, its
        // heap's first growth) is not what a body costs
        for (let i = 0; i < 3; i++) for (const r of await round(2 * mib)) assert.equal(r.status, 413);

        // three 50 MB bodies at once: a service that buffered them would grow by 150 MB or more
        const three = await measured(() => round(50 * mib));
        const [graphql, jsonrpc, preprod] = three.result;
        for (const r of [graphql!, preprod!]) {
          assert.equal(r.status, 413);
          assert.deepEqual(r.body.errors[0].extensions.code, "body-too-large");
          assert.match(r.body.errors[0].message, /larger than the limit of 1048576 bytes/);
        }
        assert.equal(jsonrpc!.status, 413);
        assert.equal(jsonrpc!.body.error.code, -32600);
        assert.match(jsonrpc!.body.error.message, /larger than the limit of 1048576 bytes/);
        assert.equal(jsonrpc!.body.id, null);

        // then one hostile body after another for 2 s (the "while one hostile request runs"), /health
        // asked every 20 ms meanwhile
        const cpuBefore = await cpuOf(service.pid);
        const flood = await measured(async () => {
          const rounds: Array<Awaited<ReturnType<typeof postChunked>>> = [];
          const flooding = (async () => {
            const started = performance.now();
            while (performance.now() - started < 2000) {
              rounds.push(await postChunked(service.base, paths[rounds.length % 3]!, key, 50 * mib));
            }
          })();
          const latencies = await healthDuring(service.base, flooding);
          return { rounds, latencies };
        });
        const { rounds, latencies } = flood.result;
        const cpu = await cpuOf(service.pid) - cpuBefore;
        const others = rounds.filter((r) => r.status !== 413);
        assert.deepEqual(others.map((r) => [r.status, r.body]), []);
        // the 413 came while the body was streaming: no client had sent its 50 MB by then (past the limit, what it
        // sent sat in socket buffers). Deno's HTTP server reads and drops what a client keeps sending after the
        // 413 (src/http/request_body.ts), so how much a client that ignores its answer can push is not ours to cap
        const sent = Math.max(...[...three.result, ...rounds].map((r) => r.written));
        assert.ok(sent < 50 * mib, `a client had sent ${sent} bytes when its 413 came`);
        const slowest = Math.max(...[...three.result, ...rounds].map((r) => r.ms));
        console.log(
          `413 after ${Math.round(slowest)} ms at most; service RSS ${Math.round(three.before / mib)} MB, ` +
            `+${three.grownMb.toFixed(1)} MB at peak for three 50 MB bodies at once, ` +
            `+${flood.grownMb.toFixed(1)} MB for ${rounds.length} more (${rounds.length * 50} MB offered); ` +
            `clients had sent ${
              (sent / mib).toFixed(1)
            } MB at most when their 413 came; /health during the flood: ${
              describeLatency(latencies)
            }; service CPU ${cpu.toFixed(2)} s`,
        );
        assert.ok(slowest < 5000, `413 took ${slowest} ms`);
        assert.ok(three.grownMb < 20, `RSS grew by ${three.grownMb.toFixed(1)} MB`);
        // the chunks read before each refusal (about 1 MiB) are garbage V8 collects when it decides, so a long
        // flood holds some for a while: bounded, and nothing like the gigabytes offered
        assert.ok(flood.grownMb < 150, `RSS grew by ${flood.grownMb.toFixed(1)} MB during the flood`);
        assertHealthKeptUp(latencies, "during the flood", 20);
      });

      await t.step(
        "bodies under the limit are still served (a 32 KiB submission, a padded query)",
        async () => {
          const padded = JSON.stringify({
            query: "{ cardanoDbMeta { initialized } }" + " ".repeat(limit - 200),
          });
          const r = await fetch(`${service.base}/v1/graphql`, {
            method: "POST",
            headers: { apikey: key, "content-type": "application/json" },
            body: padded,
          });
          assert.notEqual(r.status, 413);
          await r.body?.cancel();
          const submission = await fetch(`${service.base}/v1/ogmios`, {
            method: "POST",
            headers: { apikey: key, "content-type": "application/json" },
            body: JSON.stringify({
              jsonrpc: "2.0",
              method: "evaluateTransaction",
              params: { transaction: { cbor: "00".repeat(16 * 1024) } },
              id: 1,
            }),
          });
          const reply = await submission.json();
          assert.notEqual(submission.status, 413);
          assert.equal(reply.id, 1);
        },
      );

      await t.step("a WebSocket message over the limit closes the connection with 1009", async () => {
        const s = await openSocket(`${ws}/v1/ogmios?apikey=${key}`);
        s.socket.send(JSON.stringify({ jsonrpc: "2.0", method: "queryNetwork/tip", id: "x" }));
        assert.equal(JSON.parse(await s.next()).id, "x");
        s.socket.send("x".repeat(2 * mib));
        const closed = await closedWithin(s.closed, 5000);
        assert.equal(closed.code, 1009);
        assert.match(closed.reason, /larger than the limit of 1048576 bytes/);
        // a multi-byte message is measured in bytes: 400 Ki characters of 3 bytes each is over 1 MiB
        const t2 = await openSocket(`${ws}/v1/ogmios?apikey=${key}`);
        t2.socket.send(JSON.stringify({ jsonrpc: "2.0", method: "x", id: "€".repeat(400 * 1024) }));
        assert.equal((await closedWithin(t2.closed, 5000)).code, 1009);
      });

      await t.step(
        "a huge id or method is refused without being echoed; the npm client's id still is",
        async () => {
          const s = await openSocket(`${ws}/v1/ogmios?apikey=${key}`);
          try {
            s.socket.send(
              JSON.stringify({ jsonrpc: "2.0", method: "queryNetwork/tip", id: "i".repeat(500_000) }),
            );
            const text = await s.next();
            assert.ok(text.length < 1000, `a reply of ${text.length} characters`);
            const reply = JSON.parse(text);
            assert.equal(reply.error.code, -32600);
            assert.equal(reply.id, null);
            assert.match(reply.error.message, /'id' must be at most 1024 characters/);

            s.socket.send(JSON.stringify({ jsonrpc: "2.0", method: "m".repeat(500_000), id: 7 }));
            const method = await s.next();
            assert.ok(method.length < 1000, `a reply of ${method.length} characters`);
            assert.deepEqual([JSON.parse(method).error.code, JSON.parse(method).id], [-32600, 7]);

            const clientId = { requestId: "V1StGXR8_Z5jdHi6" };
            s.socket.send(JSON.stringify({ jsonrpc: "2.0", method: "queryNetwork/tip", id: clientId }));
            const ok = JSON.parse(await s.next());
            assert.deepEqual(ok.id, clientId);
            assert.ok("result" in ok);
          } finally {
            s.socket.close();
          }
          const http = await fetch(`${service.base}/v1/ogmios`, {
            method: "POST",
            headers: { apikey: key, "content-type": "application/json" },
            body: JSON.stringify({ jsonrpc: "2.0", method: "queryNetwork/tip", id: ["i".repeat(500_000)] }),
          });
          const text = await http.text();
          assert.equal(http.status, 400);
          assert.ok(text.length < 1000);
          assert.equal(JSON.parse(text).id, null);
        },
      );

      await t.step("static assets: only real file names; prototype keys and traversal are 404", async () => {
        for (
          const path of ["/docs/swagger-ui.css", "/docs/favicon-32x32.png", "/v1/graphiql/graphiql.min.js"]
        ) {
          const r = await fetch(`${service.base}${path}`);
          await r.body?.cancel();
          assert.equal(r.status, 200, path);
        }
        for (
          const path of [
            "/docs/constructor",
            "/docs/__proto__",
            "/docs/toString",
            "/docs/hasOwnProperty",
            "/docs/..%2F..%2Fdeno.json",
            "/docs/index.html",
            "/v1/graphiql/toString",
            "/v1/graphiql/constructor",
            "/v1/graphiql/__proto__",
            "/v1/graphiql/..%2F..%2F..%2Fdeno.json",
            "/v1/graphiql/%2e%2e%2fpackage.json",
          ]
        ) {
          const r = await fetch(`${service.base}${path}`);
          const body = await r.json();
          assert.equal(r.status, 404, path);
          assert.equal(body.error, "Not Found", path);
        }
      });

      await t.step("revoking or deactivating a key closes its idle WebSockets within 1 s", async () => {
        for (const [action, reason] of [["revoke", "Key revoked"], ["deactivate", "API key is inactive"]]) {
          const k = await createKey(env, "--tier", "paid", "--name", `idle ${action}`);
          const sockets = await Promise.all(
            [`${ws}/v1/ogmios?apikey=${k.key}`, `${ws}/v1/preprod/ogmios?apikey=${k.key}`].map(openSocket),
          );
          for (const s of sockets) {
            s.socket.send(JSON.stringify({ jsonrpc: "2.0", method: "queryNetwork/tip", id: 1 }));
            assert.ok("result" in JSON.parse(await s.next()));
          }
          assert.equal((await keysCli(env, action!, String(k.id))).code, 0);
          const changed = performance.now();
          for (const s of sockets) {
            const closed = await closedWithin(s.closed, 3000);
            const ms = closed.at - changed;
            console.log(`${action}: idle WebSocket closed ${Math.round(ms)} ms after the CLI returned`);
            assert.equal(closed.code, 1008);
            assert.equal(closed.reason, reason);
            assert.ok(ms < 1000, `closed after ${ms} ms`);
          }
        }
      });

      await t.step("a key that expires closes its idle WebSocket within 1 s of expiry", async () => {
        const expiresAt = Date.now() + 6000;
        const k = await createKey(
          env,
          "--tier",
          "paid",
          "--name",
          "expiring",
          "--expires",
          new Date(expiresAt).toISOString(),
        );
        const s = await openSocket(`${ws}/v1/ogmios?apikey=${k.key}`);
        const closed = await closedWithin(s.closed, 10_000);
        const late = Date.now() - expiresAt;
        assert.equal(closed.code, 1008);
        assert.equal(closed.reason, "API key expired");
        assert.ok(late >= -50 && late < 1000, `closed ${late} ms after expiry`);
      });

      await t.step(
        "random keys: 401 fast, an unknown key read once while remembered, a new key works within 1 s",
        async () => {
          const keys = Array.from({ length: 1000 }, randomKey);
          const first = performance.now();
          const statuses = await pooled(keys, 20, async (k) => (await statusOf(service.base, k)).status);
          const firstMs = performance.now() - first;
          assert.ok(statuses.every((s) => s === 401));
          await settleStatistics(env);
          const before = await serviceTransactions(env);
          const unknown = randomKey();
          const again = performance.now();
          const repeated = await pooled(
            Array.from({ length: 1000 }, () => unknown),
            20,
            async (k) => (await statusOf(service.base, k)).body,
          );
          const againMs = performance.now() - again;
          assert.ok(repeated.every((b) => b.error.message === "Invalid API key"));
          await settleStatistics(env);
          const after = await serviceTransactions(env);
          console.log(
            `1000 random keys: ${Math.round(firstMs)} ms; one unknown key 1000 times: ${
              Math.round(againMs)
            } ms` +
              (before === undefined ? "" : `, ${after! - before} service-database transactions`),
          );
          // the key-change poll (4 a second) and the usage flush run meanwhile; a read per request would be 1000
          if (before !== undefined) assert.ok(after! - before < 300, `${after! - before} transactions`);
          const fresh = await createKey(env, "--tier", "free", "--name", "fresh");
          const created = performance.now();
          let status = 0;
          while ((status = (await statusOf(service.base, fresh.key)).status) !== 200) {
            assert.ok(performance.now() - created < 1000, `a new key still answered ${status}`);
            await new Promise((r) => setTimeout(r, 25));
          }
        },
      );

      // the key used above is untouched by all of this
      assert.equal((await statusOf(service.base, key)).status, 200);
      assert.ok(keyId > 0);
    } finally {
      await service.stop();
      await environment.close();
    }
  },
});

Deno.test({
  name: "input limits: failed authentication is throttled per address",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const environment: TestEnvironment = await createTestEnvironment("auth_throttle");
    const env = environment.env; // AUTH_FAILURES_PER_10S: the default, 20
    const service = await startService(env);
    try {
      const { key } = await createKey(env, "--tier", "paid", "--name", "throttled");
      assert.equal((await statusOf(service.base, key)).status, 200);
      await settleStatistics(env);
      const before = await serviceTransactions(env);
      const started = performance.now();
      const answers = await pooled(
        Array.from({ length: 1000 }, randomKey),
        20,
        (k) => statusOf(service.base, k),
      );
      const ms = performance.now() - started;
      const unauthorized = answers.filter((a) => a.status === 401).length;
      const throttled = answers.filter((a) => a.status === 429);
      assert.equal(unauthorized + throttled.length, 1000);
      // requests already past the check when the 20th failure is counted still get their 401
      assert.ok(unauthorized >= 20 && unauthorized < 40, `${unauthorized} x 401`);
      assert.ok(ms < 10_000, `${ms} ms`);
      for (const a of throttled) {
        assert.equal(a.body.error.code, 429);
        assert.match(a.body.error.message, /Too many failed authentication attempts/);
        assert.ok(Number(a.retryAfter) >= 1 && Number(a.retryAfter) <= 10, `Retry-After ${a.retryAfter}`);
      }
      // the address is refused even with a good key (no oracle for guesses) until its failures age out
      const blocked = await statusOf(service.base, key);
      assert.equal(blocked.status, 429);
      const health = await fetch(`${service.base}/health`);
      await health.body?.cancel();
      assert.equal(health.status, 200, "public routes are not throttled");
      const unblocked = Date.now() + Number(blocked.retryAfter) * 1000;
      await settleStatistics(env);
      const after = await serviceTransactions(env);
      console.log(
        `1000 random keys from one address: ${unauthorized} x 401, ${throttled.length} x 429 in ${
          Math.round(ms)
        } ms` + (before === undefined ? "" : `; ${after! - before} service-database transactions`),
      );
      // a read per refused key would be 1000; the key-change poll (4 a second) and the usage flush run meanwhile
      if (before !== undefined) assert.ok(after! - before < 300, `${after! - before} transactions`);
      await new Promise((r) => setTimeout(r, Math.max(0, unblocked - Date.now())));
      assert.equal((await statusOf(service.base, key)).status, 200);
    } finally {
      await service.stop();
      await environment.close();
    }
  },
});
