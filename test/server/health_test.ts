/**
 * `npm start` with no configuration: both networks served from embedded PGlite under DATA_DIR, seeded on the
 * first start and reused on the next (the devnet, on by default, moving them on); `/health` reports each network's
 * tip and database kind. With real
 * PostgreSQL (TEST_DATABASE_URL), the same service over db-sync URLs; once a database goes away `/health` still
 * answers 200 (the process is alive) and says which network is down, and `/ready` answers 503 naming it.
 */
import assert from "node:assert/strict";
import { Effect, Schema } from "effect";
import { Health as HealthSchema } from "@schemas/service.ts";
import pg from "pg";
import { startService } from "../support/service.ts";
import { createTestChain } from "../support/demo_chain.ts";
import { testDatabaseUrl } from "../support/databases.ts";
import type { Health } from "@src/programs/health.ts";
import { join } from "node:path";

/** Every path under `dir` whose mode lets group or others in; directories must be 0700, the socket 0600. */
const exposed = async (dir: string): Promise<Array<string>> => {
  const found: Array<string> = [];
  const walk = async (path: string) => {
    const info = await Deno.lstat(path).catch(() => null);
    if (!info) return; // removed while we walked (a temporary file)
    const mode = info.mode! & 0o777;
    if (info.isDirectory ? mode !== 0o700 : (mode & 0o077) !== 0) found.push(`${path} ${mode.toString(8)}`);
    if (info.isDirectory) {
      for await (const entry of Deno.readDir(path)) {
        await walk(join(path, entry.name));
      }
    }
  };
  await walk(dir);
  return found;
};

/** The start-up phases that ended (`<phase>: done` with its `ms`), by name. */
const phasesDone = (lines: ReadonlyArray<string>): Map<string, number> =>
  new Map(lines.flatMap((l) => {
    const entry = JSON.parse(l.startsWith("{") ? l : "{}");
    return entry.message === `${entry.phase}: done` && typeof entry.ms === "number"
      ? [[entry.phase as string, entry.ms as number] as const]
      : [];
  }));

/** /health's answer, held to its schema: the route sends it without a Schema pass (programs/health.ts). */
const health = async (base: string): Promise<{ status: number; body: Health }> => {
  const response = await fetch(`${base}/health`);
  const body = await response.json();
  assert.deepEqual(Schema.encodeSync(HealthSchema)(Schema.decodeUnknownSync(HealthSchema)(body)), body);
  return { status: response.status, body };
};

Deno.test({
  name: "embedded default: first start seeds, second start reuses, /health reports both tips",
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "cds-embedded-" });
    try {
      // a template left by a start killed while preparing: removed by the next one
      await Deno.mkdir(join(dataDir, ".initdb-1-stale"));
      const first = await startService({ DATA_DIR: dataDir }, 300_000); // a first start seeds: minutes on a busy machine
      let firstHealth: { status: number; body: Health };
      try {
        const logs = first.lines.join("\n");
        assert.match(logs, /listening on http:\/\/127\.0\.0\.1:\d+/);
        assert.match(logs, /GENERATED DEMO CHAIN/);
        assert.ok(!logs.includes('"message":"memory"'), "no memory lines unless MEMORY_LOG_SECONDS is set");
        assert.match(logs, /seeding the mainnet demo chain/);
        // each start-up phase is told with its time, seeding included
        const phases = phasesDone(first.lines);
        for (const network of ["mainnet", "preprod"]) {
          assert.ok(
            phases.has(`${network} chain database: prepare (created and seeded on first start)`),
            logs,
          );
          assert.ok(phases.has(`${network} chain database: open for serving`), logs);
          assert.ok(
            phases.has(`${network} devnet: start (wallets funded and the chain caught up to the clock)`),
          );
        }
        assert.ok(phases.has("service database: open and migrate"), logs);
        // the databases were copied from one template cluster (one initdb), which is gone once they are (and
        // so is the stale one)
        const entries = await Array.fromAsync(Deno.readDir(dataDir));
        assert.deepEqual(entries.filter((e) => e.name.startsWith(".initdb-")), []);
        // the data is its owner's only: directories 0700, files 0600, the service database's socket too
        assert.deepEqual(await exposed(dataDir), []);
        const socket = await Deno.lstat(join(dataDir, "service", ".s.PGSQL.5432"));
        assert.ok(socket.isSocket, "the service database is served on its socket");
        assert.equal(socket.mode! & 0o777, 0o600);
        assert.equal((await Deno.stat(join(dataDir, "service"))).mode! & 0o777, 0o700);
        firstHealth = await health(first.base);
        assert.equal(firstHealth.status, 200);
        assert.equal(firstHealth.body.status, "ok");
        for (const name of ["mainnet chain database", "preprod chain database", "service database"]) {
          assert.equal(firstHealth.body.dependencies[name]?.state, "ok", name);
        }
        const ready = await fetch(`${first.base}/ready`);
        assert.equal(ready.status, 200);
        assert.deepEqual(await ready.json(), { status: "ready" });
        for (const network of ["mainnet", "preprod"] as const) {
          const n = firstHealth.body.networks[network];
          assert.equal(n.status, "ok");
          assert.equal(n.database, "pglite");
          assert.equal(n.demoChain, true);
          // the seeded chain ends in epoch 5; the devnet (on by default) has since written blocks at the wall clock
          assert.ok(n.tip && n.tip.blockNo > 2_000 && n.tip.epochNo >= 5, JSON.stringify(n.tip));
          assert.equal(n.tip.epochNo, Math.floor(n.tip.slotNo / 432_000));
        }
        const notFound = await fetch(`${first.base}/nope`);
        assert.equal(notFound.status, 404);
        assert.deepEqual(await notFound.json(), { error: "Not Found", message: "No route for GET /nope" });
        const wrongMethod = await fetch(`${first.base}/health`, { method: "POST" });
        assert.equal(wrongMethod.status, 405);
        await wrongMethod.body?.cancel();
      } finally {
        assert.equal(await first.stop(), 0);
      }
      const second = await startService({ DATA_DIR: dataDir, MEMORY_LOG_SECONDS: "1" });
      try {
        assert.ok(!second.lines.join("\n").includes("seeding the"), "the second start reuses the databases");
        // MEMORY_LOG_SECONDS: a `memory` line each second with RSS and the V8 heap (what `npm run soak` reads)
        const memoryLine = async () => {
          for (let i = 0; i < 50; i++) {
            const line = second.lines.find((l) => l.includes('"message":"memory"'));
            if (line) return JSON.parse(line);
            await new Promise((r) => setTimeout(r, 100));
          }
          assert.fail(`no memory line within 5 s:\n${second.lines.join("\n")}`);
        };
        const memory = await memoryLine();
        assert.ok(
          memory.rssMb > 0 && memory.heapUsedMb > 0 && memory.heapUsedMb <= memory.rssMb,
          JSON.stringify(memory),
        );
        assert.ok(memory.wasmMb_service > 0, JSON.stringify(memory));
        const again = await health(second.base);
        // the same databases, moved on by the devnet's blocks (never back)
        for (const network of ["mainnet", "preprod"] as const) {
          const [before, after] = [firstHealth!.body.networks[network], again.body.networks[network]];
          assert.equal(after.status, "ok");
          assert.deepEqual({ ...after, tip: undefined }, { ...before, tip: undefined });
          assert.ok(after.tip!.blockNo >= before.tip!.blockNo, JSON.stringify([before.tip, after.tip]));
        }
        assert.ok(
          second.lines.some((l) => l.includes("mainnet: JSON-RPC node client is the devnet")),
          "the embedded default runs the devnet",
        );
      } finally {
        assert.equal(await second.stop(), 0);
      }
      console.log(`embedded start: first ${first.startupMs} ms, second ${second.startupMs} ms`);
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "db-sync on PostgreSQL: served unchanged; a lost database: /health 200 naming it, /ready 503",
  ignore: !testDatabaseUrl,
  sanitizeResources: false,
  fn: async () => {
    const mainnet = await createTestChain("health_mainnet", "mainnet");
    const preprod = await createTestChain("health_preprod", "preprod");
    const dataDir = await Deno.makeTempDir({ prefix: "cds-pg-" });
    const service = await startService({
      DATA_DIR: dataDir,
      MAINNET_DATABASE_URL: mainnet.url!,
      PREPROD_DATABASE_URL: preprod.url!,
      SERVICE_DATABASE_URL: mainnet.url!,
    });
    try {
      const ok = await health(service.base);
      assert.equal(ok.status, 200);
      assert.equal(ok.body.networks.mainnet.database, "postgres");
      assert.equal(ok.body.networks.mainnet.tip?.blockNo, mainnet.seeded.tipBlockNo);
      assert.equal(ok.body.networks.preprod.tip?.blockNo, preprod.seeded.tipBlockNo);
      assert.ok(!service.lines.join("\n").includes(":postgres@"), "no password in the logs");
      // take preprod's database away under the running service
      await Effect.runPromise(preprod.sql`select 1`);
      const admin = new pg.Client({ connectionString: testDatabaseUrl });
      await admin.connect();
      const name = new URL(preprod.url!).pathname.slice(1);
      await admin.query(`alter database "${name}" allow_connections false`);
      await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1`, [name]);
      await admin.end();
      // /health answers from the tip poll (once a second, no query of its own): the loss shows within seconds
      let down = await health(service.base);
      for (let i = 0; i < 50 && down.body.networks.preprod.status === "ok"; i++) {
        await new Promise((r) => setTimeout(r, 100));
        down = await health(service.base);
      }
      assert.equal(down.status, 200, "liveness: the process only needs to wait");
      assert.equal(down.body.status, "degraded");
      assert.equal(down.body.networks.mainnet.status, "ok");
      assert.equal(down.body.networks.preprod.status, "unavailable");
      assert.equal(typeof down.body.networks.preprod.error, "string");
      // readiness follows within a few seconds (the monitor probes each second)
      let ready: Response | undefined;
      for (let i = 0; i < 50; i++) {
        ready = await fetch(`${service.base}/ready`);
        if (ready.status === 503) break;
        await ready.body?.cancel();
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(ready!.status, 503);
      const body = await ready!.json();
      assert.equal(body.error, "Service Unavailable");
      assert.match(body.message, /^Not ready: preprod chain database is down/);
      // and back: the database returns, /ready is 200 again within a few seconds
      const again = new pg.Client({ connectionString: testDatabaseUrl });
      await again.connect();
      await again.query(`alter database "${name}" allow_connections true`);
      await again.end();
      let back = 0;
      for (let i = 0; i < 50 && back !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const r = await fetch(`${service.base}/ready`);
        back = r.status;
        await r.body?.cancel();
      }
      assert.equal(back, 200, "/ready is 200 again once the database answers");
      let healed = await health(service.base);
      for (let i = 0; i < 50 && healed.body.networks.preprod.status !== "ok"; i++) {
        await new Promise((r) => setTimeout(r, 100));
        healed = await health(service.base);
      }
      assert.equal(healed.body.networks.preprod.status, "ok");
    } finally {
      await service.stop();
      await mainnet.close();
      await preprod.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
