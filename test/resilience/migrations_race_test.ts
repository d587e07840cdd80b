/**
 * Several instances starting at the same moment on a new, empty service database (a deployment scaled to
 * replicas): the migrations run under an advisory lock, so all of them start and the schema is applied once
 * (issue 14: one of two exited with "Failed to execute statement"). On a private PostgreSQL cluster.
 */
import assert from "node:assert/strict";
import pg from "pg";
import {
  createPrivatePostgres,
  privatePostgresAvailable,
  seedPrivateChains,
  timedGet,
} from "../support/private_servers.ts";
import { spawnService } from "../support/service.ts";

if (!privatePostgresAvailable) {
  console.log("migrations_race_test: skipped, no PostgreSQL 15 binaries (advisory locks are PostgreSQL's)");
}

Deno.test({
  name: "three instances started together on an empty service database all start; migrations applied once",
  ignore: !privatePostgresAvailable,
  sanitizeResources: false,
  fn: async () => {
    const cluster = await createPrivatePostgres();
    const dirs: Array<string> = [];
    const services: Array<ReturnType<typeof spawnService>> = [];
    try {
      await cluster.start();
      const urls = await seedPrivateChains(cluster);
      for (let i = 0; i < 3; i++) dirs.push(await Deno.makeTempDir({ prefix: `cds-race-${i}-` }));
      // line the three up: an uncommitted `create schema cds` makes each one's first statement wait, and the
      // rollback releases them at the same instant (start-up jitter alone rarely makes them collide)
      const blocker = new pg.Client({ connectionString: urls.SERVICE_DATABASE_URL });
      await blocker.connect();
      await blocker.query("begin; create schema cds");
      for (const dir of dirs) services.push(spawnService({ ...urls, DATA_DIR: dir }));
      const waiting = async () =>
        // a snapshot of pg_stat_activity lasts a transaction: clear it to see the others arrive
        (await blocker.query("select pg_stat_clear_snapshot()"),
          await blocker.query(
            `select count(*)::int as n from pg_stat_activity
           where datname = 'service' and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
          )).rows[0].n;
      for (let i = 0; i < 300 && await waiting() < 3; i++) await new Promise((r) => setTimeout(r, 100));
      const lined = await waiting();
      assert.equal(lined, 3, "the three instances reached their migrations");
      await blocker.query("rollback");
      await blocker.end();
      const bases = await Promise.all(services.map((s) => s.listening));
      for (const base of bases) {
        assert.equal((await timedGet(`${base}/ready`)).status, 200);
      }
      const client = new pg.Client({ connectionString: urls.SERVICE_DATABASE_URL });
      await client.connect();
      const { rows } = await client.query(
        "select version, count(*)::int as n from cds.schema_migrations group by 1",
      );
      const { rows: installations } = await client.query("select count(*)::int as n from cds.installation");
      await client.end();
      assert.ok(rows.length >= 1);
      assert.ok(rows.every((r) => r.n === 1), JSON.stringify(rows));
      assert.equal(installations[0].n, 1, "one installation row");
      const applied = services.flatMap((s) => s.lines.filter((l) => l.includes("applied migration")));
      assert.equal(applied.length, rows.length, "each migration applied by exactly one instance");
    } finally {
      for (const s of services) s.kill("SIGKILL");
      await Promise.all(services.map((s) => s.exited));
      await cluster.close();
      for (const dir of dirs) await Deno.remove(dir, { recursive: true });
    }
  },
});
