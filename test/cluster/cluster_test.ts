/**
 * Past one machine (issue 22), on the cluster harness (scripts/cluster: a PostgreSQL primary and replica, a
 * private Redis, three instances of src/main.ts, HAProxy in front), everything through HAProxy: the load spreads
 * over the three; each client is throttled by its own address; a key revoked on one instance is refused by all
 * within a second (every request sent a second after the revocation is refused, on every instance); one FREE key
 * holds its 100 per second in every one-second window across the instances (the limiter's own log in Redis, read
 * as it goes, and the clients' view: 200s sent and answered within one window) and reaches it (its quota's grants
 * take no less and not much more than quota / rate seconds), and exactly its daily quota (DAILY_QUOTA_FREE,
 * lowered here), and the usage rows sum to what was served; one instance killed (SIGKILL) under load fails no
 * request beyond those in flight when it died. The failed-key
 * throttle is each instance's own (src/server/auth_failures.ts), so behind three a client has three allowances.
 * The figures are printed (`cluster figure: ...`) for the README.
 */
import assert from "node:assert/strict";
import pg from "pg";
import { createKey, runCluster, type RunningCluster } from "../../scripts/cluster/harness.ts";
import { DashboardClient } from "../support/dashboard_client.ts";
import { requestFrom } from "../support/source_address_http.ts";

const dailyQuota = 500;
const failuresPer10s = 5;
/** The spec's FREE rate (RATE_LIMIT_FREE's default): 32 clients ask for some 4,000 a second through the proxy. */
const freeRate = 100;
const block = "/v2/explorer/mainnet/block/1000";

const figure = (text: string) => console.log(`cluster figure: ${text}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const queryService = async <R>(cluster: RunningCluster, text: string, values: Array<unknown> = []) => {
  const client = new pg.Client({ connectionString: cluster.databases.service });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as Array<R>;
  } finally {
    await client.end();
  }
};

const get = async (url: string, key?: string) => {
  const response = await fetch(url, { headers: key ? { apikey: key } : {} });
  const text = await response.text();
  return { status: response.status, by: response.headers.get("x-served-by") ?? "?", text };
};

Deno.test({
  name: "cluster: spread, per-client throttles, revocation, one budget and quota, usage, an instance killed",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const cluster = await runCluster({
      instanceEnv: {
        DAILY_QUOTA_FREE: String(dailyQuota),
        RATE_LIMIT_FREE: String(freeRate),
        AUTH_FAILURES_PER_10S: String(failuresPer10s),
      },
    });
    try {
      const { base } = cluster;
      const paid = await createKey(cluster, "paid", "load");

      await t.step("the load spreads over the three instances", async () => {
        const by = new Map<string, number>();
        for (let i = 0; i < 30; i++) {
          const r = await get(`${base}${block}`, paid);
          assert.equal(r.status, 200, r.text);
          by.set(r.by, (by.get(r.by) ?? 0) + 1);
        }
        figure(`30 requests served by ${JSON.stringify(Object.fromEntries(by))}`);
        assert.deepEqual([...by.keys()].sort(), ["cds1", "cds2", "cds3"]);
      });

      await t.step(
        "each client's failed keys are throttled on its own address, behind the proxy",
        async () => {
          const keyInfo = (source: string, apikey: string) =>
            requestFrom(source, `${base}/v1/key`, { headers: { apikey } }).then((r) => r.status);
          const wrongKey = (i: number) => `cds_${String(i).padStart(32, "0")}`;
          // the throttle is each instance's own: round robin gives each of the three its allowance of failures
          const instances = cluster.instances.length;
          for (let i = 0; i < failuresPer10s * instances; i++) {
            assert.equal(await keyInfo("127.0.0.2", wrongKey(i)), 401);
          }
          for (let i = 0; i < instances; i++) {
            assert.equal(
              await keyInfo("127.0.0.2", paid),
              429,
              "the first client waits, even with a good key",
            );
          }
          assert.equal(await keyInfo("127.0.0.3", wrongKey(99)), 401, "the second client is not held");
          for (let i = 0; i < instances; i++) assert.equal(await keyInfo("127.0.0.3", paid), 200);
        },
      );

      await t.step("a key revoked on one instance is refused by every instance within a second", async () => {
        const [one, two, three] = cluster.instances;
        const direct = (i: { port: number }) => `http://127.0.0.1:${i.port}`;
        const owner = new DashboardClient(direct(two!));
        const secret = await owner.signUp(
          `cluster.${crypto.randomUUID().slice(0, 8)}@example.com`,
          "a long password 1",
        );
        const id = Number((await owner.get("/dashboard")).text.match(/href="\/dashboard\/keys\/(\d+)"/)?.[1]);
        assert.ok(id > 0);
        // every instance has the key cached
        for (const instance of [one!, two!, three!]) {
          assert.equal((await get(`${direct(instance)}/v1/key`, secret)).status, 200);
        }
        // the confirmation page's form, posted on cds2; timed from its answer
        const revoked = await owner.submit(
          `/dashboard/keys/${id}/revoke`,
          `/dashboard/keys/${id}/revoke`,
          {},
        );
        const at = performance.now();
        assert.ok(revoked.status < 400, `revoke: ${revoked.status}`);
        const took: Array<number> = [];
        // per instance: when its first refused request was sent; then one more request, sent a second after the
        // revocation, is refused too (more would be failed authentications enough to throttle this address)
        const refusedFrom = await Promise.all([one!, two!, three!].map(async (instance) => {
          let firstRefused = Infinity;
          while (firstRefused === Infinity && performance.now() - at < 10_000) {
            const sent = performance.now();
            const r = await get(`${direct(instance)}/v1/key`, secret);
            took.push(performance.now() - sent);
            if (r.status === 401) firstRefused = sent - at;
            else assert.equal(r.status, 200, r.text);
          }
          await sleep(at + 1_000 - performance.now());
          const r = await get(`${direct(instance)}/v1/key`, secret);
          assert.equal(r.status, 401, `${instance.name}, a second after the revocation: ${r.text}`);
          return firstRefused;
        }));
        figure(
          `revoked on cds2, first refused request sent after (ms) ${
            refusedFrom.map((ms, i) => `${cluster.instances[i]!.name} ${ms.toFixed(1)}`).join(", ")
          } (${took.length} requests meanwhile, ${Math.min(...took).toFixed(1)}-${
            Math.max(...took).toFixed(1)
          } ms each)`,
        );
        assert.ok(refusedFrom.every((ms) => ms <= 1_000), "refused by every instance within a second");
        assert.equal((await get(`${base}/v1/key`, secret)).status, 401);
      });

      await t.step(
        "one FREE key: its rate in every one-second window over three instances, its quota, its usage",
        async () => {
          const key = cluster.key; // the harness's FREE key (operator account: a budget of its own)
          const [keyRow] = await queryService<{ id: string }>(
            cluster,
            "select id::text as id from cds.api_key where name = 'cluster'",
          );
          // the decisions as the limiter made them: its sliding logs in Redis (a grant stays in one for a second at
          // least), read every 100 ms; member -> the granting instance's clock
          const { Redis } = await import("ioredis");
          const redis = new Redis(cluster.redisUrl);
          const decided = new Map<string, number>();
          let reading = true;
          const reader = (async () => {
            while (reading) {
              for (const set of await redis.keys("cds:*:rl:*:s")) {
                const entries = await redis.zrange(set, 0, -1, "WITHSCORES");
                for (let i = 0; i < entries.length; i += 2) decided.set(entries[i]!, Number(entries[i + 1]));
              }
              await sleep(100);
            }
          })();
          // as fast as 32 clients go, until the daily quota has refused 50
          const answers: Array<{ sent: number; at: number; status: number; text: string; by: string }> = [];
          const started = performance.now();
          const startedAt = Date.now(); // the instances' clock, which the limiter's log holds
          let dailyRefused = 0;
          await Promise.all(Array.from({ length: 32 }, async () => {
            while (dailyRefused < 50 && performance.now() - started < 60_000) {
              const sent = performance.now();
              const r = await get(`${base}${block}`, key);
              answers.push({ sent, at: performance.now(), ...r });
              if (r.status === 429 && r.text.includes("Daily request limit")) dailyRefused++;
            }
          }));
          await sleep(300);
          reading = false;
          await reader;
          redis.disconnect();
          // this key's grants only (the step before ended with other keys' grants, still in their logs)
          const grants = [...decided.values()].filter((at) => at >= startedAt).sort((a, b) => a - b);
          let mostDecided = 0;
          for (let i = 0, j = 0; i < grants.length; i++) {
            while (j < grants.length && grants[j]! < grants[i]! + 1000) j++;
            mostDecided = Math.max(mostDecided, j - i);
          }
          const rateRefused = answers.filter((a) =>
            a.status === 429 && !a.text.includes("Daily request limit")
          );
          const ok = answers.filter((a) => a.status === 200);
          const served = ok.map((a) => a.at).sort((a, b) => a - b);
          const other = answers.filter((a) => a.status !== 200 && a.status !== 429);
          assert.deepEqual(other.map((a) => `${a.status} ${a.text.slice(0, 100)}`), []);
          // by the answers' arrival: every window of one second starting at an answer (latency jitter included)
          let mostByArrival = 0;
          for (let i = 0, j = 0; i < served.length; i++) {
            while (j < served.length && served[j]! < served[i]! + 1000) j++;
            mostByArrival = Math.max(mostByArrival, j - i);
          }
          // exactly: each request was decided between its sending and its answer, so the 200s sent and answered
          // within one window were all decided in it (every window starting at a request's sending)
          let most = 0;
          for (const { sent: from } of ok) {
            most = Math.max(most, ok.filter((a) => a.sent >= from && a.at < from + 1000).length);
          }
          const byInstance = new Map<string, number>();
          for (const a of answers) {
            if (a.status === 200) byInstance.set(a.by, (byInstance.get(a.by) ?? 0) + 1);
          }
          figure(
            `FREE key: ${answers.length} requests in ${
              ((performance.now() - started) / 1000).toFixed(1)
            } s, ${served.length} answered 200 (quota ${dailyQuota}), by ${
              JSON.stringify(Object.fromEntries(byInstance))
            }; ` +
              `at most ${mostDecided} grants in any 1-s window of the limiter's log (${grants.length} read), ${most} ` +
              `200s sent and answered within one (limit ${freeRate}; ${mostByArrival} by arrival time alone, ` +
              `latency jitter included); ${rateRefused.length} refused by the rate, ${dailyRefused} by the quota`,
          );
          // grant k (from 0) comes a second or more after grant k - rate: the quota's grants span at least
          // (quota / rate - 1) seconds, and not much more while the clients ask for far more than the rate
          const span = grants.at(-1)! - grants[0]!;
          const least = (dailyQuota / freeRate - 1) * 1000;
          figure(`the limiter's ${grants.length} grants span ${span} ms (${least} ms at the rate exactly)`);
          assert.equal(grants.length, dailyQuota, "every grant read from the limiter's log");
          assert.ok(mostDecided <= freeRate, `${mostDecided} grants in one second`);
          assert.ok(
            mostDecided >= freeRate * 0.98,
            `the rate reached: ${mostDecided} grants in the fullest second`,
          );
          assert.ok(span >= least && span <= 2 * least, `the quota's grants span ${span} ms`);
          assert.ok(rateRefused.length > 0, "the clients asked for more than the rate");
          assert.ok(most <= freeRate * 1.02, `${most} answers in one second`);
          assert.equal(served.length, dailyQuota, "exactly the daily quota");
          assert.ok(byInstance.size === 3);
          // usage is flushed about every second: its rows sum to what was served
          let usage = { requests: -1, refused: -1 };
          const refused = answers.length - served.length;
          for (let i = 0; i < 40 && (usage.requests !== served.length || usage.refused !== refused); i++) {
            await sleep(250);
            const [row] = await queryService<{ requests: string; refused: string }>(
              cluster,
              `select coalesce(sum(requests), 0)::text as requests, coalesce(sum(rate_limited), 0)::text as refused
               from cds.usage_daily where key_id = $1`,
              [keyRow!.id],
            );
            usage = { requests: Number(row!.requests), refused: Number(row!.refused) };
          }
          figure(
            `usage rows: ${usage.requests} requests (200s sent: ${served.length}), ${usage.refused} refused (429s: ${
              answers.length - served.length
            })`,
          );
          assert.equal(usage.requests, served.length);
          assert.equal(usage.refused, answers.length - served.length);
        },
      );

      await t.step(
        "an instance killed (SIGKILL) under load fails nothing sent after it is gone",
        async () => {
          const workers = 4;
          const victim = cluster.instances[0]!;
          let sent = 0;
          const failed: Array<string> = [];
          /** The requests that failed, by when they were sent; all must have been on their way at the kill. */
          const failedSent: Array<number> = [];
          const after = new Set<string>();
          let killedAt = Infinity;
          const until = performance.now() + 8000;
          await Promise.all([
            ...Array.from({ length: workers }, async () => {
              while (performance.now() < until) {
                const sentAt = performance.now();
                const r = await get(`${base}${block}`, paid).catch((e) => ({
                  status: 0,
                  by: "?",
                  text: String(e),
                }));
                sent++;
                if (r.status !== 200) {
                  failed.push(`${r.status} ${r.by} ${r.text.slice(0, 80)}`);
                  failedSent.push(sentAt);
                } else if (performance.now() > killedAt + 3000) after.add(r.by);
                await sleep(80); // ~50 requests per second in all
              }
            }),
            (async () => {
              await sleep(2000);
              Deno.kill(victim.pid, "SIGKILL");
              // the signal is delivered on its own time: the kill is when the process is gone (or a zombie)
              while (true) {
                const state = await Deno.readTextFile(`/proc/${victim.pid}/stat`).catch(() => "");
                if (state === "" || state.slice(state.lastIndexOf(")") + 2).startsWith("Z")) break;
                await sleep(1);
              }
              killedAt = performance.now();
            })(),
          ]);
          figure(
            `${sent} requests while ${victim.name} was killed: ${failed.length} failed ${
              JSON.stringify(failed)
            }`,
          );
          // reads in flight on it are sent again by HAProxy (retry-on empty-response); at most those could fail
          assert.ok(failed.length <= workers, `at most the ${workers} in flight fail`);
          // one sent after the kill reaches a live instance (HAProxy retries a refused connection elsewhere)
          figure(
            `failed requests sent at (ms from the kill) ${
              failedSent.map((at) => (at - killedAt).toFixed(1))
            }`,
          );
          assert.ok(failedSent.every((at) => at < killedAt), "only requests already on their way fail");
          assert.ok(!after.has(victim.name) && after.size === 2, `after: ${[...after]}`);
        },
      );
    } finally {
      await cluster.stop();
    }
  },
});
