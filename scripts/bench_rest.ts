/**
 * REST benchmark on a large db-sync database: for each endpoint, requests/s and p50/p99 latency through the
 * service (wrk, 32 connections, loopback), next to the same query functions run directly against the database
 * with the same concurrency, measured in the same run. Ratio = service / direct.
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/scale_360 npm run bench:rest   (needs wrk)
 * BENCH_FILTER='explorer tx|txs/' runs only the endpoints whose name matches it (a regular expression, any case).
 * The database must hold a chain (npm run seed -- --scale 360 gives ~9 M tx_out rows).
 * BENCH_CPU_PROF=DIR writes the service's V8 CPU profile of the whole run there (Deno's --cpu-prof; written at the
 * service's clean exit): where its JavaScript time goes.
 */
import * as Reactivity from "@effect/experimental/Reactivity";
import type { SqlClient } from "@effect/sql/SqlClient";
import { Effect, Exit, Scope } from "effect";
import pg from "pg";
import { makePgSqlClient } from "@layers/sql_pg.ts";
import { txConfirmation } from "@src/queries/tx_status.ts";
import { latestEpochParams } from "@src/queries/protocol_parameters.ts";
import { blockById, recentBlocks } from "@src/queries/blocks.ts";
import { epochFigures, tipPosition } from "@src/queries/network_stats.ts";
import { poolInfo } from "@src/queries/pool.ts";
import { stakeAccount } from "@src/queries/stake_account.ts";
import { transactionByHash } from "@src/queries/transaction.ts";
import { addressUtxos } from "@src/queries/address.ts";
import { addressSummary, addressSummarySince } from "@src/queries/address_summary.ts";
import { dreps } from "@src/queries/dreps.ts";
import { addressOptions, freshLookups, type KeyKind, keysOf, spentTracking } from "./bench/fresh_lookups.ts";
import { latencyMs, reportRows } from "./bench/results.ts";
import { startBenchService } from "./bench/service.ts";
import { wrk } from "./bench/wrk.ts";

const databaseUrl = Deno.env.get("BENCH_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/scale_360";
const seconds = Number(Deno.env.get("BENCH_SECONDS") ?? "8");
const connections = Number(Deno.env.get("BENCH_CONNECTIONS") ?? "32");
const filter = new RegExp(Deno.env.get("BENCH_FILTER") ?? "", "i");
const profileDir = Deno.env.get("BENCH_CPU_PROF");

interface Case {
  readonly name: string;
  /** One path (repeated: the service's per-tip cache answers), or many (each mostly computed afresh). */
  readonly path: string | ReadonlyArray<string>;
  /** The endpoint's own query functions, for the direct-SQL baseline; `i` picks the i-th key of many. */
  readonly direct: (sql: SqlClient, i: number) => Effect.Effect<unknown, unknown>;
  /** Many keys: others than `path`'s, to warm up on (the service, then the direct baseline). */
  readonly warmUp?: ReadonlyArray<string>;
  readonly warmUpDirect?: (sql: SqlClient, i: number) => Effect.Effect<unknown, unknown>;
}

/** The same work without HTTP: `connections` fibers calling the query function for `seconds`. */
const direct = (work: (i: number) => Effect.Effect<unknown, unknown>) =>
  Effect.gen(function* () {
    const until = Date.now() + seconds * 1000;
    let done = 0;
    const worker = Effect.whileLoop({
      while: () => Date.now() < until,
      body: () => Effect.ignore(Effect.suspend(() => work(done))),
      step: () => void done++,
    });
    yield* Effect.all(Array.from({ length: connections }, () => worker), { concurrency: "unbounded" });
    return done / seconds;
  });

const scope = Effect.runSync(Scope.make());
const sql = await Effect.runPromise(
  makePgSqlClient({ url: databaseUrl, maxConnections: connections, readOnly: true, prepareMarked: true })
    .pipe(
      Scope.extend(scope),
      Effect.provide(Reactivity.layer),
    ),
);
const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();
const one = async (text: string) => (await admin.query(text)).rows[0];
const txHash =
  (await one("select encode(hash, 'hex') as h from tx where id = (select max(id) / 2 from tx)")).h;
const blockHash = (await one("select encode(hash, 'hex') as h from block where block_no = 60000")).h;
// the pool with the most delegators in the current snapshot; the account staking the most
const pool = await one(
  `select p.view, encode(p.hash_raw, 'hex') as hex from epoch_stake e join pool_hash p on p.id = e.pool_id
   where e.epoch_no = (select max(epoch_no) from epoch_stake) group by p.id order by count(*) desc limit 1`,
);
const account = await one(
  `select s.view, encode(s.hash_raw, 'hex') as hex from epoch_stake e join stake_address s on s.id = e.addr_id
   where e.epoch_no = (select max(epoch_no) from epoch_stake) order by e.amount desc limit 1`,
);
// the busiest address among recent outputs (the exchange: 443k UTxOs at scale 360), and an ordinary one
const busyAddress: string = (await one(
  `select address from tx_out where id > (select max(id) - 200000 from tx_out)
   group by address order by count(*) desc limit 1`,
)).address;
const quietAddress: string = (await one(
  `select address from tx_out where id = (select max(id) / 3 from tx_out)`,
)).address;
// many keys, for answers computed afresh rather than from the per-tip cache: each row measures on its own keys
// (two rows on one list would answer the second from the first's cache: Blockfrost's /txs/{h} and /txs/{h}/utxos
// keep the same detail) and warms up on others (a warm-up on the measured keys leaves them cached for the run)
const keyCounts: Record<KeyKind, number> = {
  tx: 20_000,
  block: 20_000,
  pool: Infinity,
  stake: 5_000,
  address: 5_000,
  page: 1000,
};
/** A row's warm-up keys, as a share of its measured ones. */
const warmUpShare = 0.25;
const rowsOf = (kind: KeyKind) => freshLookups.filter((l) => l.kind === kind).length;
const keys = new Map<KeyKind, Array<string>>();
for (const { kind } of freshLookups) {
  if (!keys.has(kind)) {
    keys.set(kind, await keysOf(admin, kind, rowsOf(kind) * keyCounts[kind] * (1 + warmUpShare)));
  }
}
/** The `row`-th row of a kind: its measured keys first in its part of the kind's list, its warm-up keys after. */
const rowKeys = (kind: KeyKind, row: number) => {
  const all = keys.get(kind)!;
  const per = Math.floor(all.length / rowsOf(kind));
  const part = all.slice(row * per, (row + 1) * per);
  const measured = Math.min(keyCounts[kind], Math.round(part.length / (1 + warmUpShare)));
  return { measured: part.slice(0, measured), warmUp: part.slice(measured) };
};
await admin.end();
// what the service runs per request once it holds an address's summary: the update since its watermark
const summaries = new Map<string, unknown>();
for (const a of [busyAddress, quietAddress]) {
  const started = performance.now();
  summaries.set(a, await Effect.runPromise(addressSummary(sql, a, addressOptions(a))));
  console.log(`full summary of ${a.slice(0, 20)}…: ${Math.round(performance.now() - started)} ms`);
}
const summaryUpdate = (address: string) =>
  addressSummarySince(
    sql,
    summaries.get(address) as Parameters<typeof addressSummarySince>[1],
    addressOptions(address),
  );

const cases: Array<Case> = [
  {
    name: "tx-status",
    path: `/api/public/tx-status?txHash=${txHash}`,
    direct: (s) => txConfirmation(s, txHash),
  },
  {
    name: "protocol-parameters",
    path: "/api/public/protocol-parameters",
    direct: (s) => latestEpochParams(s),
  },
  {
    name: "explorer blocks (page 3)",
    path: "/v2/explorer/mainnet/blocks?page=3&limit=25",
    direct: (s) => recentBlocks(s, { page: 3, limit: 25 }),
  },
  {
    name: "explorer block by hash",
    path: `/v2/explorer/mainnet/block/${blockHash}`,
    direct: (s) => blockById(s, { hash: blockHash }),
  },
  {
    name: "explorer stats",
    path: "/v2/explorer/mainnet/stats",
    // the service caches the per-epoch figures; the baseline pays for them every time
    direct: (s) => Effect.flatMap(tipPosition(s), (t) => epochFigures(s, t!.epochNo)),
  },
  {
    name: "pool-info",
    path: `/api/public/pool-info?poolId=${pool.view}`,
    direct: (s) => poolInfo(s, pool.hex),
  },
  {
    name: "stake-account",
    path: `/api/public/stake-account?address=${account.view}`,
    direct: (s) => stakeAccount(s, account.hex, spentTracking),
  },
  {
    name: "explorer pool",
    path: `/v2/explorer/mainnet/pool/${pool.view}`,
    // lifetime rewards are cached per epoch by the service; the per-request work is the pool statement
    direct: (s) => Effect.zip(poolInfo(s, pool.hex), tipPosition(s)),
  },
  {
    name: "explorer address (busiest)",
    path: `/v2/explorer/mainnet/address/${busyAddress}`,
    direct: () => summaryUpdate(busyAddress),
  },
  {
    name: "explorer address (ordinary)",
    path: `/v2/explorer/mainnet/address/${quietAddress}`,
    direct: () => summaryUpdate(quietAddress),
  },
  {
    name: "explorer address utxos (busiest, page 1)",
    path: `/v2/explorer/mainnet/address/${busyAddress}/utxos?page=1&limit=25`,
    direct: (s) =>
      Effect.zip(
        summaryUpdate(busyAddress),
        addressUtxos(s, busyAddress, { ...addressOptions(busyAddress), page: 1, limit: 25, total: 1 }),
      ),
  },
  {
    name: "explorer address utxos (busiest, page 40)",
    path: `/v2/explorer/mainnet/address/${busyAddress}/utxos?page=40&limit=100`,
    direct: (s) =>
      Effect.zip(
        summaryUpdate(busyAddress),
        addressUtxos(s, busyAddress, { ...addressOptions(busyAddress), page: 40, limit: 100, total: 1 }),
      ),
  },
  {
    name: "explorer tx",
    path: `/v2/explorer/mainnet/tx/${txHash}`,
    direct: (s) => transactionByHash(s, txHash, spentTracking),
  },
  ...freshLookups.map((lookup, i): Case => {
    const { measured, warmUp } = rowKeys(
      lookup.kind,
      freshLookups.slice(0, i).filter((l) => l.kind === lookup.kind).length,
    );
    return {
      name: lookup.name(measured.length),
      path: measured.map(lookup.path),
      warmUp: warmUp.map(lookup.path),
      direct: (s, i) => lookup.direct(s, measured[i % measured.length]!),
      warmUpDirect: (s, i) => lookup.direct(s, warmUp[i % warmUp.length]!),
    };
  }),
  {
    name: "blockfrost epochs/latest/parameters",
    path: "/api/v0/epochs/latest/parameters",
    direct: (s) => latestEpochParams(s),
  },
  {
    name: "explorer dreps",
    path: "/v2/explorer/mainnet/dreps?page=1&pageSize=25",
    direct: (s) => dreps(s, { page: 1, pageSize: 25, activeOnly: false }),
  },
];

const profile = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
const service = await startBenchService({ databaseUrl, port: 3311, denoArgs: profile });
const key = service.key;
try {
  console.log(
    `database ${new URL(databaseUrl).pathname.slice(1)}; ${connections} concurrent; ${seconds} s each\n`,
  );
  console.log("| endpoint | service req/s | p50 | p99 | direct query/s | ratio | errors |");
  console.log("|---|---|---|---|---|---|---|");
  for (const c of cases.filter((c) => filter.test(c.name))) {
    const base = service.base;
    // the first request of a key pays its one-time costs (an exchange address's full summary: seconds), as in
    // production once ever; wait for it, then warm up under load
    const first = typeof c.path === "string" ? c.path : c.warmUp?.[0] ?? c.path[0]!;
    await (await fetch(`${base}${first}`, { headers: { apikey: key } })).body?.cancel();
    const run = { connections, seconds, headers: { apikey: key } };
    await wrk(base, c.warmUp ?? c.path, run); // warm-up
    // warmed up as the service is (on other keys than the measured run's): fresh connections load the catalog
    // and plan before they settle, and the pool drops the connections the service's run left idle for 10 s
    const warmRate = await Effect.runPromise(direct((i) => (c.warmUpDirect ?? c.direct)(sql, i + 10_007)));
    // many keys: each thread walks its own part once, for as long as they last at up to 1.5 times the direct
    // rate (1 s at least); what a faster run asks past their end is counted and named
    const served = typeof c.path === "string" ? await wrk(base, c.path, run) : await wrk(base, c.path, {
      ...run,
      seconds: Math.max(1, Math.min(seconds, Math.floor(c.path.length / (1.5 * warmRate)))),
      fresh: true,
    });
    const baseline = await Effect.runPromise(direct((i) => c.direct(sql, i)));
    const workload = served.repeated > 0
      ? `${c.name} (${served.repeated} of ${served.requests} asked again)`
      : c.name;
    console.log(
      `| ${workload} | ${Math.round(served.rps)} | ${served.p50} | ${served.p99} | ${
        Math.round(baseline)
      } | ` +
        `${(served.rps / baseline).toFixed(2)} | ${served.errors} |`,
    );
    await reportRows("rest", [{
      workload,
      ours: served.rps,
      unit: "req/s",
      reference: baseline,
      referenceName: "same SQL directly",
      p50Ms: latencyMs(served.p50),
      p99Ms: latencyMs(served.p99),
      errors: served.errors,
    }]);
  }
} finally {
  await service.stop();
  await Effect.runPromise(Scope.close(scope, Exit.void));
}
