/**
 * SIGTERM under load drains (issue 14: no graceful drain): requests in flight when the signal comes complete,
 * new connections are refused, open WebSockets see 1001 "going away", usage is flushed, and the exit code is 0,
 * within a bound: a client that never finishes its request (here a chunked body left open) does not hold the
 * process up past the 10 s drain (on main it waited for it forever).
 */
import assert from "node:assert/strict";
import { createKey, createTestEnvironment } from "../support/environment.ts";
import { sleep, usageOf } from "../support/private_servers.ts";
import { spawnService } from "../support/service.ts";

const query = "{ tx_out(order_by: {id: desc}, limit: 200) { id address value } }";

Deno.test({
  name: "SIGTERM under load: in-flight requests finish, new connections refused, WebSockets 1001, usage kept",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const environment = await createTestEnvironment("drain");
    const service = spawnService(environment.env);
    let stuck: Deno.TcpConn | undefined;
    try {
      const base = await service.listening;
      const { key, id } = await createKey(environment.env, "--tier", "paid", "--name", "drain");
      const socket = new WebSocket(`${base.replace("http", "ws")}/v1/ogmios?apikey=${key}`);
      const closed = new Promise<CloseEvent>((resolve) => socket.onclose = resolve);
      await new Promise((resolve, reject) => {
        socket.onopen = resolve;
        socket.onerror = reject;
      });
      // a request that never ends: a chunked GraphQL body, the last chunk never sent
      const { hostname, port } = new URL(base);
      stuck = await Deno.connect({ hostname, port: Number(port) });
      await stuck!.write(new TextEncoder().encode(
        `POST /v1/graphql HTTP/1.1\r\nhost: ${hostname}\r\napikey: ${key}\r\n` +
          `content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n1\r\n{\r\n`,
      ));
      await sleep(200);
      const inFlight = Array.from({ length: 40 }, async () => {
        const r = await fetch(`${base}/v1/graphql`, {
          method: "POST",
          headers: { apikey: key, "content-type": "application/json" },
          body: JSON.stringify({ query }),
        });
        const body = await r.json();
        return { status: r.status, rows: body.data?.tx_out?.length };
      });
      await sleep(150); // every request is with the service by now
      service.kill("SIGTERM");
      const signalled = performance.now();
      await sleep(300);
      const refused = await fetch(`${base}/health`).then(
        (r) => r.body?.cancel().then(() => false),
        () => true,
      );
      const answers = await Promise.all(inFlight);
      assert.deepEqual(
        answers.filter((a) => a.status !== 200 || a.rows !== 200),
        [],
        "every request in flight got its full answer",
      );
      assert.ok(refused, "a new connection is refused while draining");
      const close = await closed;
      assert.equal(close.code, 1001);
      const exit = await Promise.race([service.exited, sleep(20_000).then(() => "still running")]);
      assert.equal(exit, 0, "exits 0 within the drain bound");
      const drainMs = performance.now() - signalled;
      console.log(`drained and exited ${drainMs.toFixed(0)} ms after SIGTERM`);
      assert.ok(drainMs < 15_000, `${drainMs} ms`);
      assert.ok(service.lines.some((l) => l.includes("shutting down: draining")));
      // the 40 and the one that never finished
      assert.equal(await usageOf(environment.env, id, "graphql"), 41, "usage flushed at shutdown");
    } finally {
      try {
        stuck?.close();
      } catch { /* closed */ }
      service.kill("SIGKILL");
      await service.exited;
      await environment.close();
    }
  },
});
