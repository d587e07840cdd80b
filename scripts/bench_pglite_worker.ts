/**
 * What running PGlite in a worker costs: the latency of an indexed point query through the service's SqlClient,
 * in a worker (`makePgliteWorkerSqlClient`) and in this thread (`makePgliteSqlClientFrom`), and the time to open
 * an existing database either way. Small on purpose (a 100k-row table, 2,000 queries a side).
 *
 *   ./node_modules/.bin/deno run -A scripts/bench_pglite_worker.ts [queries]
 */
import * as Reactivity from "@effect/experimental/Reactivity";
import type { SqlClient } from "@effect/sql/SqlClient";
import { Effect, Exit, Scope } from "effect";
import { makePgliteSqlClientFrom, makePgliteWorkerSqlClient, openPglite } from "@layers/sql_pglite.ts";

const queries = Number(Deno.args[0] ?? 2_000);
const dir = await Deno.makeTempDir({ prefix: "cds-bench-pglite-worker-" });

const percentile = (sorted: Array<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

const pointQueries = async (sql: SqlClient) => {
  const times: Array<number> = [];
  for (let i = 0; i < queries; i++) {
    const slot = (i * 7919) % 100_000;
    const started = performance.now();
    await Effect.runPromise(sql`select id, slot, hash from t where slot = ${slot}`);
    times.push((performance.now() - started) * 1000);
  }
  times.sort((a, b) => a - b);
  return `median ${percentile(times, 0.5).toFixed(0)} µs, p99 ${percentile(times, 0.99).toFixed(0)} µs`;
};

try {
  const setup = await openPglite(dir);
  await setup.exec(`create table t (id serial primary key, slot int not null, hash bytea not null);
    insert into t (slot, hash) select g, sha256(g::text::bytea) from generate_series(0, 99999) g;
    create index t_slot on t (slot)`);
  await setup.close();

  let started = performance.now();
  const db = await openPglite(dir);
  const openDirect = performance.now() - started;
  const direct = await Effect.runPromise(makePgliteSqlClientFrom(db).pipe(Effect.provide(Reactivity.layer)));
  await pointQueries(direct); // warm
  const directResult = await pointQueries(direct);
  await db.close();

  const scope = Effect.runSync(Scope.make());
  started = performance.now();
  const { sql } = await Effect.runPromise(
    makePgliteWorkerSqlClient({ dataDir: dir }).pipe(Scope.extend(scope), Effect.provide(Reactivity.layer)),
  );
  const openWorker = performance.now() - started;
  await pointQueries(sql); // warm
  const workerResult = await pointQueries(sql);
  await Effect.runPromise(Scope.close(scope, Exit.void));

  console.log(`point query, ${queries} sequential, after a warm-up run:`);
  console.log(`  in this thread: ${directResult}`);
  console.log(`  in a worker:    ${workerResult}`);
  console.log(
    `open an existing database: in this thread ${openDirect.toFixed(0)} ms, in a worker ${
      openWorker.toFixed(0)
    } ms`,
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}
