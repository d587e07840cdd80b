/**
 * Whether a lookup's cost grows with the work or with the chain (issue 23): bench_rest's fresh-key rows
 * (scripts/bench/fresh_lookups.ts) through the service on db-sync databases of several sizes, one service per
 * database, each lookup on every database back to back (the order alternating from lookup to lookup, so load
 * drifting on the shared machine does not favour one size). Keys are drawn at random over each whole chain and
 * never asked twice within the run: a warm-up slice, then a measured slice of other keys, each wrk thread its own
 * part of it (keys a thread asks again, once its part is used up, are counted and reported).
 *   npm run bench -- scaling                         (or npm run bench:scaling; needs wrk)
 * BENCH_SCALING_DATABASES: the databases, smallest chain first (default scale_40,scale_200,scale_360: ~1.06M,
 * ~5.3M and ~9.2M tx_out rows, `npm run seed -- --scale N`), names on BENCH_DATABASE_URL's server (default
 * postgres://postgres:postgres@127.0.0.1:5432) or full URLs. BENCH_SECONDS per measured run (default 5),
 * BENCH_CONNECTIONS (32), BENCH_FILTER (a regular expression on the row names), BENCH_KEYS (keys per lookup and
 * database, default enough for 6,000 requests/s through the warm-up and the measured run).
 * Rows: per lookup and database requests/s, p50 and p99 (ratio: requests/s to the smallest chain's), then the
 * p99 at the largest chain over the p99 at the smallest (targets.ts: flat means at most 1.5), and the shared
 * buffers the database touched per request (pg_stat_database's blks_hit + blks_read over the measured run,
 * whoever else reads that database meanwhile included): the work per request, which the machine's load does not
 * move as it moves latencies.
 */
import pg from "pg";
import { freshLookups, type KeyKind, keysOf } from "./bench/fresh_lookups.ts";
import { latencyMs, reportRows, type ResultRow } from "./bench/results.ts";
import { type BenchService, startBenchService } from "./bench/service.ts";
import { wrk, type WrkResult } from "./bench/wrk.ts";

const seconds = Number(Deno.env.get("BENCH_SECONDS") ?? "5");
const connections = Number(Deno.env.get("BENCH_CONNECTIONS") ?? "32");
const filter = new RegExp(Deno.env.get("BENCH_FILTER") ?? "", "i");
const warmSeconds = 2;
const keysPerLookup = Number(Deno.env.get("BENCH_KEYS") ?? String(6000 * (seconds + warmSeconds)));
const server = Deno.env.get("BENCH_DATABASE_URL") ?? "postgres://postgres:postgres@127.0.0.1:5432/postgres";
const databaseUrls = (Deno.env.get("BENCH_SCALING_DATABASES") ?? "scale_40,scale_200,scale_360").split(",")
  .map((d) => d.trim()).filter(Boolean).map((d) => {
    if (d.includes("://")) return d;
    const url = new URL(server);
    url.pathname = `/${d}`;
    return url.toString();
  });
if (databaseUrls.length < 2) throw new Error("BENCH_SCALING_DATABASES: name at least two databases");

const lookups = freshLookups.filter((l) => filter.test(l.name(keysPerLookup)));
const kinds = [...new Set(lookups.map((l) => l.kind))];
const loadAverage = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");

interface Chain {
  readonly name: string;
  readonly outputs: number;
  /** "1.06M outputs" */
  readonly label: string;
  /** Per lookup (index in `lookups`): its warm-up and its measured keys, disjoint from every other lookup's. */
  readonly keys: ReadonlyArray<{ readonly warm: Array<string>; readonly measured: Array<string> }>;
}

/** Each lookup's own keys: lookups of one kind (tx-status and explorer tx, say) share no key. */
const chainOf = async (url: string): Promise<Chain> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const outputs = Number(
      (await client.query("select reltuples::bigint as n from pg_class where relname = 'tx_out'")).rows[0]?.n,
    );
    const blocks = Number((await client.query("select max(block_no) as n from block")).rows[0]?.n ?? 0);
    const byKind = new Map<KeyKind, Array<string>>();
    for (const kind of kinds) {
      const sharing = lookups.filter((l) => l.kind === kind).length;
      // pages: the chain's own (25 blocks each), each page once
      const count = kind === "page" ? Math.floor(blocks / 25) : keysPerLookup * sharing;
      byKind.set(kind, await keysOf(client, kind, count));
    }
    const keys = lookups.map((lookup) => {
      const all = byKind.get(lookup.kind)!;
      const sharing = lookups.filter((l) => l.kind === lookup.kind);
      const per = Math.floor(all.length / sharing.length);
      const mine = all.slice(per * sharing.indexOf(lookup), per * (sharing.indexOf(lookup) + 1));
      const warm = Math.floor(mine.length * warmSeconds / (warmSeconds + seconds));
      return { warm: mine.slice(0, warm), measured: mine.slice(warm) };
    });
    const name = new URL(url).pathname.slice(1);
    return { name, outputs, label: `${(outputs / 1e6).toFixed(2)}M outputs`, keys };
  } finally {
    await client.end();
  }
};

const chains: Array<Chain> = [];
const chainUrls: Array<string> = [];
for (const url of databaseUrls) {
  const started = performance.now();
  try {
    chains.push(await chainOf(url));
  } catch (error) {
    // a size not seeded here (scale_200, say) leaves the others to compare
    console.log(
      `${new URL(url).pathname.slice(1)} left out: ${error instanceof Error ? error.message : error}`,
    );
    continue;
  }
  chainUrls.push(url);
  console.log(
    `${chains.at(-1)!.name}: ${chains.at(-1)!.label}, keys drawn in ` +
      `${Math.round(performance.now() - started)} ms`,
  );
}
if (chains.length < 2) {
  console.error("bench:scaling needs at least two of BENCH_SCALING_DATABASES to compare");
  Deno.exit(1);
}
const smallest = chains[0]!, largest = chains[chains.length - 1]!;
/** Each lookup's row name, for the fewest keys a database gave it. */
const names = lookups.map((lookup, l) =>
  lookup.name(Math.min(...chains.map((c) => c.keys[l]!.measured.length)))
);

const services: Array<BenchService> = [];
const results: Array<Array<WrkResult>> = lookups.map(() => []);
const buffersPerRequest: Array<Array<number>> = lookups.map(() => []);
/** Buffers the database has touched so far; a backend reports its own once idle, at most once a second. */
const buffersTouched = async (client: pg.Client) => {
  await new Promise((r) => setTimeout(r, 1500));
  const { rows } = await client.query(
    "select blks_hit + blks_read as n from pg_stat_database where datname = current_database()",
  );
  return Number(rows[0]?.n ?? 0);
};
const statsClients = chainUrls.map((url) => new pg.Client({ connectionString: url }));
const notes: Array<string> = [];
const loadBefore = await loadAverage();
try {
  for (const client of statsClients) await client.connect();
  for (const [i, url] of chainUrls.entries()) {
    services.push(await startBenchService({ databaseUrl: url, port: 3511 + i }));
  }
  console.log(
    `\n${connections} concurrent, ${seconds} s measured after ${warmSeconds} s of warm-up per lookup and ` +
      `database; load average ${loadBefore}\n`,
  );
  for (const [l, lookup] of lookups.entries()) {
    const order = chains.map((_, c) => c);
    if (l % 2 === 1) order.reverse();
    for (const c of order) {
      const chain = chains[c]!, service = services[c]!;
      const { warm, measured } = chain.keys[l]!;
      const run = { connections, headers: { apikey: service.key }, fresh: true };
      await wrk(service.base, warm.map(lookup.path), { ...run, seconds: warmSeconds });
      const before = await buffersTouched(statsClients[c]!);
      results[l]![c] = await wrk(service.base, measured.map(lookup.path), { ...run, seconds });
      const r = results[l]![c]!;
      buffersPerRequest[l]![c] = (await buffersTouched(statsClients[c]!) - before) / Math.max(1, r.requests);
      if (r.repeated) notes.push(`${names[l]} on ${chain.name}: ${r.repeated} of ${r.requests} asked again`);
      if (r.errors) {
        notes.push(`${names[l]} on ${chain.name}: ${r.non2xx} non-2xx, ${r.timeouts} timeouts`);
      }
    }
    console.error(`${names[l]}: done, load average ${await loadAverage()}`);
  }
} finally {
  for (const s of services) await s.stop();
  for (const client of statsClients) await client.end().catch(() => {});
}

const p99 = (r: WrkResult) => latencyMs(r.p99);
const rows: Array<ResultRow> = [];
const header = [
  "lookup",
  ...chains.flatMap((c) => [`${c.label} req/s`, "p50", "p99", "buffers/req"]),
  `p99 ${largest.label.split(" ")[0]} / ${smallest.label.split(" ")[0]}`,
  "req/s ratio",
  "buffers/req ratio",
];
console.log(`| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|`);
for (const l of lookups.keys()) {
  const name = names[l]!;
  const measured = results[l]!;
  const first = measured[0]!, last = measured[measured.length - 1]!;
  for (const [c, chain] of chains.entries()) {
    const r = measured[c]!;
    rows.push({
      workload: `${name} @ ${chain.label}`,
      ours: r.rps,
      unit: "req/s",
      ...(c === 0 ? {} : { reference: first.rps, referenceName: `at ${smallest.label}` }),
      p50Ms: latencyMs(r.p50),
      p99Ms: p99(r),
      errors: r.errors,
    });
  }
  const growth = (p99(last) ?? NaN) / (p99(first) ?? NaN);
  rows.push({
    workload: `${name}: p99 at ${largest.label} / at ${smallest.label.split(" ")[0]}`,
    ours: p99(last) ?? NaN,
    unit: "ms p99",
    reference: p99(first) ?? NaN,
    referenceName: `at ${smallest.label}`,
  });
  const buffers = buffersPerRequest[l]!;
  rows.push({
    workload: `${name}: buffers per request at ${largest.label} / at ${smallest.label.split(" ")[0]}`,
    ours: buffers[buffers.length - 1]!,
    unit: "buffers",
    reference: buffers[0]!,
    referenceName: `at ${smallest.label}`,
  });
  console.log(
    `| ${name} | ${
      measured.map((r, c) => `${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${buffers[c]!.toFixed(1)}`).join(
        " | ",
      )
    } | ${growth.toFixed(2)} | ${(last.rps / first.rps).toFixed(2)} | ` +
      `${(buffers[buffers.length - 1]! / buffers[0]!).toFixed(2)} |`,
  );
}
console.log(`\nload average ${loadBefore} before, ${await loadAverage()} after`);
if (notes.length) console.log("\n" + notes.map((n) => `- ${n}`).join("\n"));
await reportRows("scaling", rows);
