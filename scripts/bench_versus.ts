/**
 * Our Blockfrost dialect against Blockfrost's own self-hosted backend (blockfrost-backend-ryo, Node.js), both on
 * the same db-sync database: for each lookup, ours then theirs back to back, wrk with 32 connections on loopback,
 * keys never asked before within the run (each side walks its own disjoint slice of the ids, each wrk thread its
 * own part of it; warm-ups on other slices again). Prints a Markdown table: requests/s, p50 and p99 of each, and
 * ours/theirs.
 *   BENCH_BLOCKFROST_URL=http://127.0.0.1:3100 npm run bench:versus     (theirs already running on the database)
 *   BENCH_BLOCKFROST_DIR=/path/to/blockfrost-backend-ryo npm run bench:versus   (a built checkout; started here)
 * BENCH_DATABASE_URL is the database both run on (default: bf_360, a copy of scale_360 with the indexes their
 * README asks for: build them on a copy, never on a shared database). Needs wrk. Without their URL or directory,
 * it says so and exits 0.
 */
import { stopChildren } from "./bench/children.ts";
import pg from "pg";
import { extraIndexesFile, parseExtraIndexes } from "@src/dbsync/extra_indexes.ts";
import { randomKeys } from "./bench/chain_keys.ts";
import { latencyMs, reportRows } from "./bench/results.ts";
import { startBenchService } from "./bench/service.ts";
import { wrk, type WrkResult } from "./bench/wrk.ts";

const databaseUrl = Deno.env.get("BENCH_DATABASE_URL") ??
  "postgres://postgres:postgres@127.0.0.1:5432/bf_360";
const seconds = Number(Deno.env.get("BENCH_SECONDS") ?? "8");
const connections = Number(Deno.env.get("BENCH_CONNECTIONS") ?? "32");
const warmSeconds = 2;
/**
 * Keys per lookup, split four ways (below): each side's measured slice must outlast its run, or keys repeat (the
 * table's notes count the repeats): 60,000 gives each side 27,000 fresh keys, 3,375 requests/s for 8 s.
 */
const keysPerLookup = Number(Deno.env.get("BENCH_KEYS") ?? "60000");
const theirsGiven = Deno.env.get("BENCH_BLOCKFROST_URL");
const theirsDir = Deno.env.get("BENCH_BLOCKFROST_DIR");
const theirsPort = 3100;
const oursPort = 3411;

const skip = (why: string) => {
  console.log(`bench:versus skipped: ${why}`);
  Deno.exit(0);
};
if (!theirsGiven && !theirsDir) {
  skip(
    "set BENCH_BLOCKFROST_URL (blockfrost-backend-ryo running on BENCH_DATABASE_URL) or BENCH_BLOCKFROST_DIR " +
      "(a built checkout of it: `yarn build`, then this starts `node dist/server.js`)",
  );
}
if (!theirsGiven && theirsDir) {
  try {
    await Deno.stat(`${theirsDir}/dist/server.js`);
  } catch {
    skip(`${theirsDir}/dist/server.js not found (build blockfrost-backend-ryo there first)`);
  }
}

const db = new URL(databaseUrl);
const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();
// two disjoint sets of transactions: the detail and the utxos share our statement, so one lookup must not
// warm the other's rows
const txHashes = await randomKeys(admin, "tx", "encode(hash, 'hex')", 2 * keysPerLookup);
const blockHashes = await randomKeys(admin, "block", "encode(hash, 'hex')", keysPerLookup);
const addresses = await randomKeys(admin, "tx_out", "address", keysPerLookup, "payment_cred is not null");
const stakeAddresses = await randomKeys(admin, "stake_address", "view", keysPerLookup);
const outputs = Number(
  (await admin.query("select reltuples::bigint as n from pg_class where relname = 'tx_out'")).rows[0]?.n ?? 0,
);
const theirIndexes = Number(
  (await admin.query("select count(*) as n from pg_indexes where indexname like 'bf\\_%'")).rows[0]?.n ?? 0,
);
const ourIndexes = parseExtraIndexes(await Deno.readTextFile(extraIndexesFile)).map((i) => i.name);
const ourIndexesThere = Number(
  (await admin.query("select count(*) as n from pg_indexes where indexname = any($1)", [ourIndexes])).rows[0]
    ?.n ?? 0,
);
await admin.end();

interface Lookup {
  readonly name: string;
  /** Paths under the base URL (/api/v0 for ours, the root for theirs); one path: repeated, not fresh. */
  readonly paths: string | ReadonlyArray<string>;
}
const lookups: ReadonlyArray<Lookup> = [
  { name: "/txs/{hash}", paths: txHashes.slice(0, keysPerLookup).map((h) => `/txs/${h}`) },
  { name: "/txs/{hash}/utxos", paths: txHashes.slice(keysPerLookup).map((h) => `/txs/${h}/utxos`) },
  { name: "/blocks/{hash}", paths: blockHashes.map((h) => `/blocks/${h}`) },
  { name: "/addresses/{addr}/utxos", paths: addresses.map((a) => `/addresses/${a}/utxos`) },
  { name: "/accounts/{stake}", paths: stakeAddresses.map((s) => `/accounts/${s}`) },
  { name: "/health", paths: "/health" },
];

/** Warm-up slices of a twentieth each, measured slices of 45% each: no key in two of them. */
const slices = (paths: ReadonlyArray<string>) => {
  const twentieth = Math.floor(paths.length / 20);
  return {
    oursWarm: paths.slice(0, twentieth),
    theirsWarm: paths.slice(twentieth, 2 * twentieth),
    ours: paths.slice(2 * twentieth, 11 * twentieth),
    theirs: paths.slice(11 * twentieth, 20 * twentieth),
  };
};

/** Same JSON (keys sorted)? Otherwise the top-level fields (or array positions) that differ. */
const canonical = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(canonical) : v && typeof v === "object"
    ? Object.fromEntries(
      Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)).map((
        [k, x],
      ) => [k, canonical(x)]),
    )
    : v;
const difference = (ours: unknown, theirs: unknown): string | undefined => {
  const a = canonical(ours), b = canonical(theirs);
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
  if (a && b && typeof a === "object" && typeof b === "object") {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    const differing = [...keys].filter((k) =>
      JSON.stringify((a as Record<string, unknown>)[k]) !== JSON.stringify((b as Record<string, unknown>)[k])
    );
    return `differ in ${differing.join(", ")}`;
  }
  return "differ";
};

const children: Array<Deno.ChildProcess> = [];
const ours = await startBenchService({ databaseUrl, port: oursPort });
try {
  let theirsBase = theirsGiven?.replace(/\/$/, "");
  let theirsExited: Promise<Deno.CommandStatus> | undefined;
  if (!theirsBase) {
    theirsBase = `http://127.0.0.1:${theirsPort}`;
    const taken = await fetch(`${theirsBase}/`).then((r) => r.body?.cancel()).then(() => true, () => false);
    if (taken) throw new Error(`${theirsBase} already answers: stop it, or name it in BENCH_BLOCKFROST_URL`);
    // their configuration through node-config's NODE_CONFIG, under a config name with no file of its own
    const config = {
      server: { listenAddress: "127.0.0.1", port: theirsPort, debug: false },
      dbSync: {
        host: db.hostname,
        port: Number(db.port || 5432),
        user: decodeURIComponent(db.username),
        password: decodeURIComponent(db.password),
        database: db.pathname.slice(1),
        maxConnections: 16, // our chain database pool's size
      },
      network: "mainnet",
      tokenRegistryEnabled: false,
      tokenRegistryUrl: "https://tokens.cardano.org",
    };
    const child = new Deno.Command("node", {
      args: ["--max-http-header-size=32768", "dist/server.js"],
      cwd: theirsDir,
      env: {
        // production with debug off is their only setting without a log line per request (through
        // pino-pretty): ours logs none at the warning level either
        NODE_ENV: "production",
        NODE_CONFIG_ENV: "bench-versus",
        NODE_CONFIG: JSON.stringify(config),
        SUPPRESS_NO_CONFIG_WARNING: "1",
      },
      stdout: "null",
      stderr: "null",
    }).spawn();
    children.push(child);
    theirsExited = child.status;
  }
  const oursBase = `${ours.base}/api/v0`;
  let exited = false;
  theirsExited?.then(() => exited = true);
  for (let i = 0;; i++) {
    try {
      const r = await fetch(`${theirsBase}/health`);
      await r.body?.cancel();
      if (r.ok) break;
    } catch { /* not up yet */ }
    if (exited) throw new Error(`blockfrost-backend-ryo exited (node dist/server.js in ${theirsDir})`);
    if (i === 300) throw new Error(`${theirsBase}/health did not answer 200 within a minute`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const theirVersion = await fetch(`${theirsBase}/`).then((r) => r.json()).then((j) => j.version ?? "?")
    .catch(() => "?");
  const headers = { project_id: ours.key };
  const run = (base: string, paths: string | ReadonlyArray<string>, s: number) =>
    wrk(base, paths, { connections, seconds: s, headers, fresh: typeof paths !== "string" });
  const get = (url: string) => fetch(url, { headers }).then((r) => r.json()).catch((e) => String(e));

  const rows: Array<{ name: string; ours: WrkResult; theirs: WrkResult }> = [];
  const notes: Array<string> = [];
  for (const lookup of lookups) {
    let oursRun: WrkResult, theirsRun: WrkResult;
    if (typeof lookup.paths === "string") {
      await run(oursBase, lookup.paths, warmSeconds);
      await run(theirsBase, lookup.paths, warmSeconds);
      oursRun = await run(oursBase, lookup.paths, seconds);
      theirsRun = await run(theirsBase, lookup.paths, seconds);
    } else {
      const s = slices(lookup.paths);
      const sample = s.oursWarm[0]!;
      const differs = difference(await get(`${oursBase}${sample}`), await get(`${theirsBase}${sample}`));
      if (differs) notes.push(`${lookup.name}: the answers for ${sample} ${differs}`);
      await run(oursBase, s.oursWarm, warmSeconds);
      await run(theirsBase, s.theirsWarm, warmSeconds);
      oursRun = await run(oursBase, s.ours, seconds);
      theirsRun = await run(theirsBase, s.theirs, seconds);
    }
    for (const [side, r] of [["ours", oursRun], ["theirs", theirsRun]] as const) {
      if (r.repeated) {
        notes.push(`${lookup.name}, ${side}: ${r.repeated} of ${r.requests} requests repeated a key`);
      }
      if (r.errors) {
        notes.push(
          `${lookup.name}, ${side}: ${r.non2xx} non-2xx answers, ${r.timeouts} timeouts (no answer within 2 s) ` +
            `of ${r.requests} requests`,
        );
      }
    }
    rows.push({ name: lookup.name, ours: oursRun, theirs: theirsRun });
  }

  console.log(
    `\nboth on ${db.pathname.slice(1)} (~${(outputs / 1e6).toFixed(1)}M tx_out rows; indexes: ` +
      `${theirIndexes} bf_* of blockfrost-backend-ryo's README, ${ourIndexesThere} of our ${ourIndexes.length}); ` +
      `blockfrost-backend-ryo ${theirVersion}; wrk ${connections} connections, ${seconds} s per run; ` +
      `${keysPerLookup} keys per lookup, ${slices(lookups[0]!.paths as ReadonlyArray<string>).ours.length} ` +
      `of them fresh for each side's run\n`,
  );
  console.log(
    "| lookup | ours req/s | ours p50 | ours p99 | theirs req/s | theirs p50 | theirs p99 | ours/theirs |",
  );
  console.log("|---|--:|--:|--:|--:|--:|--:|--:|");
  // a side whose answers were mostly errors measured something else than the lookup
  const failed = (r: WrkResult) => r.errors > r.requests / 100;
  for (const { name, ours: o, theirs: t } of rows) {
    const ratio = failed(o) || failed(t) ? "n/a (errors)" : t.rps ? (o.rps / t.rps).toFixed(2) : "-";
    console.log(
      `| ${name} | ${Math.round(o.rps)} | ${o.p50} | ${o.p99} | ${
        Math.round(t.rps)
      } | ${t.p50} | ${t.p99} | ` +
        `${ratio} |`,
    );
  }
  if (notes.length) console.log("\n" + notes.map((n) => `- ${n}`).join("\n"));
  await reportRows(
    "versus",
    rows.map(({ name, ours: o, theirs: t }) => ({
      workload: name,
      ours: o.rps,
      unit: "req/s",
      reference: t.rps,
      referenceName: "blockfrost-backend-ryo",
      p50Ms: latencyMs(o.p50),
      p99Ms: latencyMs(o.p99),
      errors: o.errors,
    })),
  );
} finally {
  await stopChildren(children);
  await ours.stop();
}
