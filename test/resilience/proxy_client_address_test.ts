/**
 * Per-client throttles behind a real HAProxy (issue 19): with the proxy in TRUSTED_PROXIES, the service counts
 * each client by the address HAProxy appends to `X-Forwarded-For`, so one client exhausting the failed-key
 * throttle or the log-in throttle does not make another wait. Forged `X-Forwarded-For` from an untrusted peer is
 * ignored; from a trusted proxy every named client counts on its own, also in a flood of concurrent wrong
 * passwords (nothing 500s). The clients are told apart by their source address (127.0.0.2, 127.0.0.3, …).
 */
import assert from "node:assert/strict";
import { createTestEnvironment } from "../support/environment.ts";
import { startHaproxy } from "../support/haproxy.ts";
import { startService } from "../support/service.ts";
import { DashboardClient } from "../support/dashboard_client.ts";
import { requestFrom } from "../support/source_address_http.ts";

const password = "a long enough password 3";
const failuresPer10s = 5;
/** The log-in throttle's allowance per address (attempt_throttle.ts: 20 wrong passwords in 15 minutes). */
const loginsPerAddress = 20;

Deno.test({
  name: "behind HAProxy each client is throttled on its own; forged X-Forwarded-For counts only from a proxy",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const environment = await createTestEnvironment("proxy_address");
    const service = await startService({
      ...environment.env,
      TRUSTED_PROXIES: "127.0.0.1",
      AUTH_FAILURES_PER_10S: String(failuresPer10s),
      LOG_LEVEL: "debug",
    });
    const proxy = await startHaproxy(service.base);
    try {
      const owner = new DashboardClient(service.base);
      const email = `owner.${crypto.randomUUID().slice(0, 8)}@example.com`;
      const key = await owner.signUp(email, password);

      /** GET /v1/key with `apikey` from `source` to `base`, with extra headers. */
      const keyInfo = (source: string, base: string, apikey: string, headers: Record<string, string> = {}) =>
        requestFrom(source, `${base}/v1/key`, { headers: { apikey, ...headers } }).then((r) => r.status);
      const wrongKey = (i: number) => `cds_${String(i).padStart(32, "0")}`;

      /** A log-in form post as a browser on `base`'s page would make it (double-submit token, Origin). */
      const formToken = "t".repeat(43);
      const logIn = (source: string, base: string, address: string, pass: string, headers = {}) =>
        requestFrom(source, `${base}/login`, {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            cookie: `cds_form=${formToken}`,
            origin: base,
            ...headers,
          },
          body: new URLSearchParams({ csrf: formToken, email: address, password: pass }).toString(),
        });

      await t.step("failed keys: one client past AUTH_FAILURES_PER_10S, the other is not held", async () => {
        for (let i = 0; i < failuresPer10s; i++) {
          assert.equal(await keyInfo("127.0.0.2", proxy.base, wrongKey(i)), 401);
        }
        assert.equal(
          await keyInfo("127.0.0.2", proxy.base, key),
          429,
          "the first client waits, even with a key",
        );
        assert.equal(await keyInfo("127.0.0.3", proxy.base, wrongKey(99)), 401, "the second does not");
        assert.equal(await keyInfo("127.0.0.3", proxy.base, key), 200);
        // the log line of the second client's answer names it, not the proxy
        const answered = service.lines.filter((l) => l.includes('"answered"') && l.includes("/v1/key"));
        assert.ok(
          answered.some((l) => l.includes('"clientAddress":"127.0.0.3"')),
          answered.slice(-3).join("\n"),
        );
        assert.ok(answered.some((l) => l.includes('"clientAddress":"127.0.0.2"')));
      });

      await t.step("log-ins: one client past its wrong passwords, the other logs in", async () => {
        for (let i = 0; i < loginsPerAddress; i++) {
          const r = await logIn("127.0.0.2", proxy.base, `guess${i}@example.com`, "wrong password!!");
          assert.equal(r.status, 401, r.text.slice(0, 300));
        }
        assert.equal(
          (await logIn("127.0.0.2", proxy.base, "guess@example.com", "wrong password!!")).status,
          429,
        );
        assert.equal((await logIn("127.0.0.2", proxy.base, email, password)).status, 429);
        const r = await logIn("127.0.0.3", proxy.base, email, password);
        assert.equal(r.status, 303, r.text.slice(0, 300));
        assert.equal(r.headers.location, "/dashboard");
      });

      await t.step("forged X-Forwarded-For from an untrusted peer is ignored", async () => {
        // straight to the service from 127.0.0.4: not a trusted proxy, so each forged name is the same client
        for (let i = 0; i < failuresPer10s; i++) {
          const forged = { "x-forwarded-for": `198.51.100.${i}`, forwarded: `for=198.51.100.${i}` };
          assert.equal(await keyInfo("127.0.0.4", service.base, wrongKey(i), forged), 401);
        }
        assert.equal(
          await keyInfo("127.0.0.4", service.base, key, { "x-forwarded-for": "198.51.100.200" }),
          429,
        );
        // behind the proxy, a forged hop left of the one HAProxy appends changes nothing either
        for (let i = 0; i < failuresPer10s; i++) {
          const forged = { "x-forwarded-for": `198.51.100.${i}` };
          assert.equal(await keyInfo("127.0.0.5", proxy.base, wrongKey(i), forged), 401);
        }
        assert.equal(
          await keyInfo("127.0.0.5", proxy.base, key, { "x-forwarded-for": "198.51.100.202" }),
          429,
          "the client behind the proxy waits, whatever it forges",
        );
      });

      await t.step("from a trusted proxy, each forwarded client counts on its own", async () => {
        // 127.0.0.1 is the trusted proxy: 40 clients with one wrong key each, 8 times the allowance in all
        const statuses = await Promise.all(
          Array.from(
            { length: 40 },
            (_, i) =>
              keyInfo("127.0.0.1", service.base, wrongKey(i), { "x-forwarded-for": `203.0.113.${i}` }),
          ),
        );
        assert.deepEqual([...new Set(statuses)], [401]);
        for (let i = 0; i < failuresPer10s; i++) {
          await keyInfo("127.0.0.1", service.base, wrongKey(i), { forwarded: 'for="[2001:db8:5::1]:4711"' });
        }
        assert.equal(
          await keyInfo("127.0.0.1", service.base, key, { "x-forwarded-for": "2001:db8:5::99" }),
          429,
          "the same /64, named through the other header",
        );
        assert.equal(
          await keyInfo("127.0.0.1", service.base, key, { "x-forwarded-for": "2001:db8:6::1" }),
          200,
        );
        assert.equal(await keyInfo("127.0.0.1", service.base, key), 200, "the proxy's own requests");
      });

      await t.step("a flood of wrong passwords from many forwarded clients at once", async () => {
        const clients = 200;
        const started = performance.now();
        const answers = await Promise.all(
          Array.from({ length: clients }, (_, i) =>
            logIn(
              "127.0.0.1",
              service.base,
              `flood${i}@example.com`,
              "wrong password!!",
              { "x-forwarded-for": i % 2 ? `192.0.2.${i >> 1}` : `2001:db8:f:${i}::1` },
            )),
        );
        const ms = Math.round(performance.now() - started);
        const counts: Record<number, number> = {};
        for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
        const peak = (await Deno.readTextFile(`/proc/${service.pid}/status`)).match(/VmHWM:\s+(\d+)/)?.[1];
        console.log(
          `${clients} concurrent wrong log-ins from ${clients} forwarded clients: ${ms} ms`,
          counts,
          {
            peakRssMb: Math.round(Number(peak) / 1024),
          },
        );
        // one attempt per client: none is past its allowance (no 429), and nothing fails with a 500. A 503
        // ("try again shortly") is the bounded password-hash queue being full (layers/bounded_gate.ts), not a
        // throttle: the flood is held to a few hashes at a time whatever the number of addresses
        assert.deepEqual(Object.keys(counts).filter((status) => status !== "401" && status !== "503"), []);
        assert.ok((counts[401] ?? 0) > 0);
        // ...and a client the flood did not name still logs in
        const r = await logIn("127.0.0.1", service.base, email, password, {
          "x-forwarded-for": "192.0.2.250",
        });
        assert.equal(r.status, 303);
        assert.equal((await requestFrom("127.0.0.3", `${proxy.base}/health`)).status, 200);
      });
    } finally {
      await proxy.stop();
      await service.stop();
      await environment.close();
    }
  },
});
