/**
 * `npm run bench`: runs the benchmarks one after the other (each its own process, as `npm run bench:NAME` does,
 * with this environment: BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_DATABASE_URL, REDIS_URL, …), then prints one
 * Markdown table of their rows (scripts/bench/results.ts), each a ratio to a reference measured in the same run,
 * against issue 23's targets (scripts/bench/targets.ts), headed by the commit and date it was measured on: the
 * figures README.md quotes come from it.
 *   npm run bench                          # access, rest, graphql, ogmios, devnet
 *   npm run bench -- access rest           # only these (cluster, soak, versus, scaling only when named)
 *   npm run bench -- --markdown FILE       # also write the table (with its heading) to FILE
 * rest and graphql need a large db-sync database in BENCH_DATABASE_URL (`npm run seed -- --scale 360`); without
 * it they are listed as skipped, and ogmios runs on the embedded demo chains only.
 */
import pg from "pg";
import type { ResultLine } from "./bench/results.ts";
import { type Missing, renderTable } from "./bench/table.ts";

interface Bench {
  readonly name: string;
  readonly script: string;
  readonly byDefault: boolean;
  readonly needsDatabase: boolean;
}

const benches: ReadonlyArray<Bench> = [
  { name: "access", script: "scripts/bench_access.ts", byDefault: true, needsDatabase: false },
  { name: "rest", script: "scripts/bench_rest.ts", byDefault: true, needsDatabase: true },
  { name: "graphql", script: "scripts/bench_graphql.ts", byDefault: true, needsDatabase: true },
  // without a database: embedded demo chains, the large chain sync left out
  { name: "ogmios", script: "scripts/bench_ogmios.ts", byDefault: true, needsDatabase: false },
  { name: "devnet", script: "scripts/bench_devnet.ts", byDefault: true, needsDatabase: false },
  { name: "cluster", script: "scripts/bench_cluster.ts", byDefault: false, needsDatabase: false },
  // Blockfrost's own backend beside ours (BENCH_BLOCKFROST_URL or _DIR; its own database, bf_360 by default)
  { name: "versus", script: "scripts/bench_versus.ts", byDefault: false, needsDatabase: false },
  { name: "soak", script: "scripts/soak.ts", byDefault: false, needsDatabase: false },
  // fresh-key REST lookups on chains of three sizes (BENCH_SCALING_DATABASES, scale_40,scale_200,scale_360)
  { name: "scaling", script: "scripts/bench_scaling.ts", byDefault: false, needsDatabase: false },
];

const args = [...Deno.args];
const markdownAt = args.indexOf("--markdown");
const markdownFile = markdownAt >= 0 ? args.splice(markdownAt, 2)[1] : undefined;
if (markdownAt >= 0 && !markdownFile) throw new Error("--markdown needs a file name");
const unknown = args.filter((a) => !benches.some((b) => b.name === a));
if (unknown.length) {
  console.error(`unknown benchmark ${unknown.join(", ")}; known: ${benches.map((b) => b.name).join(", ")}`);
  Deno.exit(2);
}
const chosen = args.length
  ? benches.filter((b) => args.includes(b.name))
  : benches.filter((b) => b.byDefault);

const text = async (command: string, args: Array<string>) =>
  new TextDecoder().decode((await new Deno.Command(command, { args, stdout: "piped" }).output()).stdout)
    .trim();
const commit = await text("git", ["rev-parse", "--short", "HEAD"]);
const dirty = (await text("git", ["status", "--porcelain", "--untracked-files=no"])) !== "";
const loadAverage = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
const started = new Date();
const loadBefore = await loadAverage();
const databaseUrl = Deno.env.get("BENCH_DATABASE_URL");
/** "scale_360, ~9.2M tx_out rows": which database the rows were measured on (the planner's estimate). */
const describeDatabase = async (url: string) => {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query(
      "select reltuples::bigint as n from pg_class where relname = 'tx_out'",
    );
    return `${new URL(url).pathname.slice(1)}, ~${(Number(rows[0]?.n ?? 0) / 1e6).toFixed(2)}M tx_out rows`;
  } catch (error) {
    return `${new URL(url).pathname.slice(1)} (${error instanceof Error ? error.message : error})`;
  } finally {
    await client.end().catch(() => {});
  }
};
const database = databaseUrl ? await describeDatabase(databaseUrl) : "(none)";

const resultsFile = await Deno.makeTempFile({ prefix: "cds-bench-", suffix: ".jsonl" });
const missing: Array<Missing> = [];
for (const bench of chosen) {
  if (bench.needsDatabase && !databaseUrl) {
    missing.push({
      bench: bench.name,
      reason: "skipped: needs BENCH_DATABASE_URL (a large db-sync database)",
    });
    continue;
  }
  console.error(`\n=== bench ${bench.name} (${bench.script}) ===`);
  const before = (await Deno.readTextFile(resultsFile)).length;
  const status = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", bench.script],
    env: { BENCH_RESULTS: resultsFile },
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  const reported = (await Deno.readTextFile(resultsFile)).length > before;
  if (!status.success) missing.push({ bench: bench.name, reason: `failed: exit ${status.code}` });
  else if (!reported) missing.push({ bench: bench.name, reason: "reported no rows" });
}
const rows = (await Deno.readTextFile(resultsFile)).split("\n").filter(Boolean)
  .map((line) => JSON.parse(line) as ResultLine);
await Deno.remove(resultsFile);

const minutes = ((Date.now() - started.getTime()) / 60_000).toFixed(1);
const when = started.toISOString().slice(0, 16).replace("T", " ");
// the benches' settings that were not left at their defaults (URLs left out: they may hold passwords)
const changed = Object.entries(Deno.env.toObject())
  .filter(([name]) => /^(BENCH|SOAK|CAPACITY|WARM|RECOVERY)_/.test(name) && !/_URL$/.test(name))
  .sort().map(([name, value]) => `${name}=${value}`);
const settings = [...changed, Deno.env.get("REDIS_URL") ? "with REDIS_URL" : "no REDIS_URL"].join(", ");
const loadAfter = await loadAverage();
const heading = [
  `Measured at commit ${commit}${dirty ? "+dirty" : ""} on ${when} UTC in ${minutes} min; ` +
  `${navigator.hardwareConcurrency} cores, load average ${loadBefore} before, ${loadAfter} after; ` +
  `${settings} (the rest at their defaults); database ${database}.`,
  "Ratio = ours / reference, both measured in the same run.",
].join("\n");
const table = `${heading}\n\n${renderTable(rows, missing)}\n`;
console.log(`\n${table}`);
if (markdownFile) await Deno.writeTextFile(markdownFile, table);
