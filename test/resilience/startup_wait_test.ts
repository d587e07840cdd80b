/**
 * Start-up waits for its databases (issue 14: a database that opened 10 s after the service made it exit at once
 * with ECONNREFUSED). Meanwhile the port is open: /health 200 with each dependency's state, /ready and every
 * other route 503 in the REST envelope. Past STARTUP_TIMEOUT it exits non-zero with one line naming what never
 * came up. Runs on a private PostgreSQL cluster (started late on purpose), so it needs no TEST_DATABASE_URL.
 */
import assert from "node:assert/strict";
import {
  createPrivatePostgres,
  freePort,
  privatePostgresAvailable,
  seedPrivateChains,
  sleep,
  timedGet,
} from "../support/private_servers.ts";
import { spawnService } from "../support/service.ts";
import { startFakeOgmios } from "../support/ogmios_upstream.ts";
import { createPrivateRedis, redisAvailable } from "../support/private_servers.ts";
import { assertHealthKeptUp } from "../support/health_latency.ts";

if (!privatePostgresAvailable) {
  console.log("startup_wait_test: skipped, no PostgreSQL 15 binaries to run a private cluster");
}

Deno.test({
  name: "a database 10 s late, then Redis and Ogmios 4 s late: port open and 503s meanwhile, then it serves",
  ignore: !privatePostgresAvailable,
  sanitizeResources: false,
  fn: async () => {
    const pg = await createPrivatePostgres();
    const dataDir = await Deno.makeTempDir({ prefix: "cds-startup-wait-" });
    let service: ReturnType<typeof spawnService> | undefined;
    try {
      await pg.start();
      const urls = await seedPrivateChains(pg);
      await pg.stop();
      const spawnedAt = performance.now();
      service = spawnService({ ...urls, DATA_DIR: dataDir, STARTUP_TIMEOUT: "60" });
      const base = await service.open;
      await sleep(1_000); // a first attempt has failed by now
      const probes = [];
      for (let i = 0; i < 10; i++) probes.push(await timedGet(`${base}/health`));
      const starting = probes.at(-1)!;
      assert.ok(probes.every((p) => p.status === 200), "alive while waiting");
      assertHealthKeptUp(probes.map((p) => p.ms), "while the database is away");
      assert.equal(starting.body.status, "starting");
      const chain = starting.body.dependencies["mainnet chain database"];
      assert.equal(chain.state, "starting");
      assert.match(chain.lastError, /ECONNREFUSED|connect/i);
      const ready = await timedGet(`${base}/ready`);
      assert.equal(ready.status, 503);
      assert.equal(ready.body.error, "Service Unavailable");
      assert.match(ready.body.message, /^Not ready: starting: .*mainnet chain database/);
      for (const path of ["/v1/key", "/api/v1/blocks/latest", "/nope"]) {
        const r = await timedGet(`${base}${path}`, { apikey: "cds_paid_whatever" });
        assert.equal(r.status, 503, path);
        assert.deepEqual(Object.keys(r.body).sort(), ["error", "message"]);
        assert.match(r.body.message, /starting/);
      }
      // the database opens 10 s after the service
      await sleep(Math.max(0, 10_000 - (performance.now() - spawnedAt)));
      await pg.start();
      const databaseAt = performance.now();
      const listening = await Promise.race([service.listening, sleep(30_000).then(() => undefined)]);
      assert.equal(listening, base, "serves on the port it opened");
      console.log(`serving ${Math.round(performance.now() - databaseAt)} ms after the database opened`);
      const up = await timedGet(`${base}/ready`);
      assert.equal(up.status, 200);
      const health = await timedGet(`${base}/health`);
      assert.equal(health.body.status, "ok");
      assert.equal(health.body.networks.mainnet.status, "ok");
      assert.ok(service.lines.some((l) => l.includes("waiting for mainnet chain database")));
      service.kill("SIGKILL");
      await service.exited;

      if (!redisAvailable) {
        console.log("late Redis and Ogmios: skipped, no redis-server binary");
        return;
      }
      // Redis and an Ogmios upstream that come 4 s after the service (the databases are up)
      const redis = createPrivateRedis();
      const ogmiosPort = freePort();
      let ogmios: ReturnType<typeof startFakeOgmios> | undefined;
      try {
        const lateAt = performance.now();
        service = spawnService({
          ...urls,
          DATA_DIR: dataDir,
          STARTUP_TIMEOUT: "60",
          REDIS_URL: redis.url,
          MAINNET_OGMIOS_URL: `ws://127.0.0.1:${ogmiosPort}`,
        });
        const base2 = await service.open;
        const openedAt = performance.now();
        let seen: Record<string, { state: string }> = {};
        const waitingMs: Array<number> = [];
        // 4 s at least, and enough probes however late the loaded process opened its port (Redis and Ogmios
        // come only after this loop). A probe every 20 ms, as healthWhile's prober does: the start-up's own CPU
        // work (the GraphQL schemas, loading the Redis client) takes a few probes' time on three loaded test
        // files, and with only ten probes two of them decided the p90 (CI: 310 ms)
        let probe = 0;
        while (
          performance.now() - lateAt < 4_000 || (waitingMs.length < 40 && performance.now() - lateAt < 20_000)
        ) {
          const h = await timedGet(`${base2}/health`);
          assert.equal(h.status, 200);
          seen = { ...seen, ...h.body.dependencies };
          // the port opens while the process is still loading: measure from half a second on
          if (performance.now() - openedAt > 500) waitingMs.push(h.ms);
          if (probe++ % 5 === 0) assert.equal((await timedGet(`${base2}/ready`)).status, 503);
          await sleep(20);
        }
        assertHealthKeptUp(waitingMs, "while Redis and Ogmios are away", 40);
        assert.equal(seen.redis?.state, "starting", JSON.stringify(seen));
        await redis.start();
        ogmios = startFakeOgmios(ogmiosPort);
        const lateUpAt = performance.now();
        const served = await Promise.race([service.listening, sleep(30_000).then(() => undefined)]);
        console.log(`serving ${Math.round(performance.now() - lateUpAt)} ms after Redis and Ogmios came up`);
        assert.equal(served, base2);
        const health = await timedGet(`${base2}/health`);
        assert.equal(health.body.dependencies.redis.state, "ok");
        assert.equal(health.body.dependencies["mainnet Ogmios upstream"].state, "ok");
        assert.equal((await timedGet(`${base2}/ready`)).status, 200);
      } finally {
        service.kill("SIGKILL");
        await service.exited;
        await redis.stop();
        await ogmios?.stop();
      }
    } finally {
      service?.kill("SIGKILL");
      await service?.exited;
      await pg.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a database that never comes up: exit 1 after STARTUP_TIMEOUT with one line naming it",
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "cds-startup-timeout-" });
    const nowhere = `postgres://postgres@127.0.0.1:${freePort()}/none`;
    const service = spawnService({
      MAINNET_DATABASE_URL: nowhere,
      PREPROD_DATABASE_URL: nowhere,
      SERVICE_DATABASE_URL: nowhere,
      DATA_DIR: dataDir,
      STARTUP_TIMEOUT: "4",
    });
    try {
      const base = await service.open;
      const alive = await timedGet(`${base}/health`);
      assert.equal(alive.status, 200);
      const started = performance.now();
      const code = await service.exited;
      assert.equal(code, 1);
      assert.ok(performance.now() - started > 2_000, "it waited");
      const last = service.lines.filter((l) => l.startsWith("Cannot start"));
      assert.equal(last.length, 1, service.lines.join("\n"));
      assert.match(
        last[0]!,
        /^Cannot start: gave up after 4 s \(STARTUP_TIMEOUT\) waiting for .*mainnet chain database \(.*(ECONNREFUSED|connect)/,
      );
    } finally {
      service.kill("SIGKILL");
      await service.exited;
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
