/**
 * `npm run bench:cluster` (needs wrk): throughput through HAProxy at 1, 2 and 3 instances, on the cluster harness
 * (scripts/cluster), of a database-bound endpoint (explorer transactions by distinct hashes, read afresh: a block
 * is added to the primary every 250 ms meanwhile, as db-sync would, so answers kept per tip last about a second;
 * the instances' cache hits are counted from their /metrics and shown) and a cached one (explorer stats), and
 * where the CPU went meanwhile: each instance, HAProxy, PostgreSQL (the
 * primary and the replica, with their backends), Redis and wrk itself, from /proc/<pid>/stat before and after,
 * next to the whole machine's busy time (/proc/stat: other work on it shows there).
 *   BENCH_SECONDS=8 BENCH_CONNECTIONS=32 npm run bench:cluster
 */
import pg from "pg";
import { createKey, runCluster, type RunningCluster } from "./cluster/harness.ts";
import { appendBlock } from "./cluster/replica_check.ts";
import { latencyMs, reportRows } from "./bench/results.ts";
import { wrk } from "./bench/wrk.ts";

const seconds = Number(Deno.env.get("BENCH_SECONDS") ?? "8");
const connections = Number(Deno.env.get("BENCH_CONNECTIONS") ?? "32");
const ticksPerSecond = 100; // USER_HZ on Linux
const metricsToken = crypto.randomUUID();

/** Cache hits and misses summed over the instances (their /metrics, asked directly). */
const cacheCounts = async (cluster: RunningCluster) => {
  let hits = 0;
  let misses = 0;
  for (const instance of cluster.instances) {
    const response = await fetch(`http://127.0.0.1:${instance.port}/metrics`, {
      headers: { authorization: `Bearer ${metricsToken}` },
    });
    const text = await response.text();
    hits += Number(text.match(/^cds_cache_hits_total (\d+)/m)?.[1] ?? NaN);
    misses += Number(text.match(/^cds_cache_misses_total (\d+)/m)?.[1] ?? NaN);
  }
  return { hits, misses };
};

/** Adds a block to the chain every `ms` until stopped (the chain's tip moves, as it does on a live chain). */
const growChain = (url: string, ms: number) => {
  const client = new pg.Client({ connectionString: url });
  let running = true;
  const done = (async () => {
    await client.connect();
    while (running) {
      await client.query(appendBlock);
      await new Promise((r) => setTimeout(r, ms));
    }
    await client.end();
  })();
  return async () => {
    running = false;
    await done;
  };
};

/** The parent of every process, and each one's own CPU ticks (utime + stime) and its reaped children's. */
const processTable = async () => {
  const table = new Map<number, { ppid: number; own: number; reaped: number }>();
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const text = await Deno.readTextFile(`/proc/${entry.name}/stat`).catch(() => "");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    if (fields.length < 20) continue;
    // after the command: state ppid ... utime(14) stime(15) cutime(16) cstime(17), counted from 3
    table.set(Number(entry.name), {
      ppid: Number(fields[1]),
      own: Number(fields[11]) + Number(fields[12]),
      reaped: Number(fields[13]) + Number(fields[14]),
    });
  }
  return table;
};

/** CPU ticks of `pid` and all its descendants, living or reaped. */
const treeTicks = (table: Awaited<ReturnType<typeof processTable>>, pid: number): number => {
  const self = table.get(pid);
  if (!self) return 0;
  let ticks = self.own + self.reaped;
  for (const [child, row] of table) if (row.ppid === pid) ticks += treeTicks(table, child);
  return ticks;
};

/** Busy and total ticks of the whole machine. */
const machineTicks = async () => {
  const [cpu] = (await Deno.readTextFile("/proc/stat")).split("\n");
  const values = cpu!.trim().split(/\s+/).slice(1).map(Number);
  const idle = values[3]! + values[4]!;
  const total = values.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
};

const groupsOf = (cluster: RunningCluster): Array<[string, Array<number>]> => [
  ...cluster.instances.map((i): [string, Array<number>] => [i.name, [i.pid]]),
  ["haproxy", [cluster.haproxyPid]],
  ["postgresql", [cluster.primaryPid, cluster.replicaPid]],
  ["redis", [cluster.redisPid]],
  ["wrk", [Deno.pid]], // wrk is this process's reaped child; the harness (its other child) is still running
];

const cpuNow = async (cluster: RunningCluster) => {
  const table = await processTable();
  const self = table.get(Deno.pid)!;
  return {
    groups: groupsOf(cluster).map(([name, pids]): [string, number] => [
      name,
      name === "wrk" ? self.reaped : pids.reduce((sum, pid) => sum + treeTicks(table, pid), 0),
    ]),
    machine: await machineTicks(),
  };
};

/** wrk through the proxy, with the answers per second that were 200s: an instance out of rotation makes HAProxy
 * answer 503 fast, which is no throughput. */
const measure = async (base: string, paths: ReadonlyArray<string>, key: string, duration = seconds) => {
  const result = await wrk(base, paths, { connections, seconds: duration, headers: { apikey: key } });
  const okRps = result.requests === 0 ? 0 : result.rps * (result.requests - result.non2xx) / result.requests;
  return { ...result, okRps };
};

const txHashes = async (url: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query("select encode(hash, 'hex') as hash from tx order by id limit 40000");
    return rows.map((r: { hash: string }) => r.hash);
  } finally {
    await client.end();
  }
};

interface Row {
  readonly instances: number;
  readonly endpoint: string;
  readonly rps: number;
  readonly okRps: number;
  readonly p50: string;
  readonly p99: string;
  readonly errors: number;
  /** The share of cache lookups answered from the cache during the run. */
  readonly cacheHits: number;
  /** The largest peak RSS (VmHWM) of the instances, in MB, since they started. */
  readonly peakRssMb: number;
  /** CPU seconds per group during the run, and the machine's busy share. */
  readonly cpu: ReadonlyArray<[string, number]>;
  readonly machineBusy: number;
}

const rows: Array<Row> = [];
for (const instances of [1, 2, 3] as const) {
  console.error(`bench:cluster: starting the cluster with ${instances} instance(s)`);
  // no rate limit on the PAID key (RATE_LIMIT_PAID=0): the proxy and the instances are measured, not the budget
  const cluster = await runCluster({
    instances,
    instanceEnv: { RATE_LIMIT_PAID: "0", METRICS_TOKEN: metricsToken },
  });
  try {
    const key = await createKey(cluster, "paid", "bench");
    await new Promise((r) => setTimeout(r, 500));
    const hashes = await txHashes(cluster.databases.mainnet.at(-1)!); // the primary
    const cases: Array<[string, ReadonlyArray<string>, boolean]> = [
      [
        `explorer tx, ${hashes.length} distinct hashes, a block every 250 ms`,
        hashes.map((h) => `/v2/explorer/mainnet/tx/${h}`),
        true,
      ],
      ["explorer stats (cached)", ["/v2/explorer/mainnet/stats"], false],
    ];
    for (const [endpoint, paths, growing] of cases) {
      const stopGrowing = growing ? growChain(cluster.databases.mainnet.at(-1)!, 250) : undefined;
      await measure(cluster.base, paths, key, 2); // warm-up: connections, plans, caches
      const cacheBefore = await cacheCounts(cluster);
      const before = await cpuNow(cluster);
      const result = await measure(cluster.base, paths, key);
      const after = await cpuNow(cluster);
      const cacheAfter = await cacheCounts(cluster);
      await stopGrowing?.();
      const lookups = cacheAfter.hits - cacheBefore.hits + cacheAfter.misses - cacheBefore.misses;
      const cacheHits = lookups === 0 ? 0 : (cacheAfter.hits - cacheBefore.hits) / lookups;
      const cpu = after.groups.map(([name, ticks], i): [string, number] => [
        name,
        (ticks - before.groups[i]![1]) / ticksPerSecond,
      ]);
      const machineBusy = (after.machine.busy - before.machine.busy) /
        (after.machine.total - before.machine.total);
      const peaks = await Promise.all(cluster.instances.map(async (i) => {
        const status = await Deno.readTextFile(`/proc/${i.pid}/status`).catch(() => "");
        return Number(status.match(/^VmHWM:\s+(\d+) kB/m)?.[1] ?? 0) / 1024;
      }));
      const peakRssMb = Math.max(...peaks);
      rows.push({ instances, endpoint, ...result, cacheHits, peakRssMb, cpu, machineBusy });
      console.error(
        `  ${endpoint}: ${result.okRps.toFixed(0)} answered 200 per second (${result.rps} req/s)`,
      );
    }
  } finally {
    await cluster.stop();
  }
}

const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
console.log(
  `\nwrk -t2 -c${connections} -d${seconds}s through HAProxy, loopback, ${navigator.hardwareConcurrency} cores ` +
    `(client, proxy, instances, PostgreSQL and Redis share them), load average at the end ${load}\n`,
);
console.log(
  "| instances | endpoint | 2xx/s | req/s | p50 | p99 | errors | cache hits | peak RSS per instance | CPU s during " +
    "the run | machine busy |",
);
console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|");
for (const r of rows) {
  const cpu = r.cpu.filter(([, s]) => s >= 0.05).map(([name, s]) => `${name} ${s.toFixed(1)}`).join(", ");
  console.log(
    `| ${r.instances} | ${r.endpoint} | ${r.okRps.toFixed(0)} | ${
      r.rps.toFixed(0)
    } | ${r.p50} | ${r.p99} | ${r.errors} | ${(r.cacheHits * 100).toFixed(0)}% | ${
      r.peakRssMb.toFixed(0)
    } MB | ${cpu} | ${(r.machineBusy * 100).toFixed(0)}% |`,
  );
}
// each row next to the same endpoint at one instance: how the answers per second scale with instances
await reportRows(
  "cluster",
  rows.map((r) => {
    const single = rows.find((o) => o.instances === 1 && o.endpoint === r.endpoint);
    return {
      workload: `${r.endpoint}, ${r.instances} instance${r.instances > 1 ? "s" : ""} behind HAProxy`,
      ours: r.okRps,
      unit: "2xx/s",
      ...(r.instances > 1 && single ? { reference: single.okRps, referenceName: "1 instance" } : {}),
      p50Ms: latencyMs(r.p50),
      p99Ms: latencyMs(r.p99),
      errors: r.errors,
    };
  }),
);
