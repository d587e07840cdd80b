/**
 * Benchmark of the access path (issue: cost of auth + limits per request): throughput of an authenticated trivial
 * endpoint (`GET /v1/key`) against a raw `Deno.serve` handler returning similar JSON, measured in the same run
 * with wrk on loopback; with the in-memory limiter, and with Redis when REDIS_URL is set. Also `/health` (no key,
 * no query: the tips the poll keeps) for scale, and the explorer's stats (cached per tip) as a cached answer.
 *   npm run bench:access        (needs wrk: apt-get install wrk)
 * BENCH_CPU_PROF=DIR writes each service's V8 CPU profile of its run there (Deno's --cpu-prof, at its clean exit).
 */
import { stopChildren } from "./bench/children.ts";
import { serviceArgsWith, serviceEnv } from "./cluster/topology.ts";
import { Effect } from "effect";
import { join } from "node:path";
import { seedDemoChainPglite } from "@src/demo_chain/seed.ts";
import { openPglite } from "@layers/sql_pglite.ts";
import { latencyMs, reportRows } from "./bench/results.ts";

const duration = Deno.env.get("BENCH_SECONDS") ?? "8";
const connections = Deno.env.get("BENCH_CONNECTIONS") ?? "32";
const redisUrl = Deno.env.get("REDIS_URL") || undefined;
const profileDir = Deno.env.get("BENCH_CPU_PROF");
const profile = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];

const wrk = async (url: string, headers: Record<string, string> = {}) => {
  const args = ["-t2", `-c${connections}`, `-d${duration}s`, "--latency"];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}: ${v}`);
  const out = await new Deno.Command("wrk", { args: [...args, url], stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  const rps = Number(text.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? 0);
  const p99 = text.match(/99%\s+([\d.]+\w+)/)?.[1] ?? "?";
  const non2xx = Number(text.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0);
  return { rps, p99, non2xx };
};

/** Until `url` answers (any status), or until it answers 200 when `ok` is asked: a service opens its port
 * before its databases are up and answers 503 meanwhile, which must not be measured. */
const waitFor = async (url: string, ok = false) => {
  for (let i = 0; i < 600; i++) {
    try {
      const r = await fetch(url);
      await r.body?.cancel();
      if (!ok || r.status === 200) return;
      await new Promise((r) => setTimeout(r, 200));
      continue;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`${url} did not come up`);
};

const spawn = (args: Array<string>, env: Record<string, string>) =>
  new Deno.Command(Deno.execPath(), {
    args,
    env: { NO_COLOR: "1", ...env },
    stdout: "null",
    stderr: "inherit",
  })
    .spawn();

const dataDir = await Deno.makeTempDir({ prefix: "cds-bench-" });
const children: Array<Deno.ChildProcess> = [];
try {
  for (const network of ["mainnet", "preprod"] as const) {
    const db = await openPglite(join(dataDir, network));
    await Effect.runPromise(seedDemoChainPglite(db, { network, scale: 1 }));
    await db.close();
  }
  const rawPort = 3301;
  children.push(spawn([
    "eval",
    `const body = JSON.stringify({ name: "bench", tier: "PAID", limits: { requestsPerSecond: 500 } });
     Deno.serve({ port: ${rawPort}, hostname: "127.0.0.1", onListen() {} },
       () => new Response(body, { headers: { "content-type": "application/json" } }));`,
  ], {}));
  await waitFor(`http://127.0.0.1:${rawPort}/`);

  const results: Array<[string, { rps: number; p99: string; non2xx: number }]> = [];
  const variants: Array<[string, Record<string, string>]> = [["memory limiter", { REDIS_URL: "" }]];
  if (redisUrl) variants.push(["Redis limiter", { REDIS_URL: redisUrl }]);
  const raw = await wrk(`http://127.0.0.1:${rawPort}/`);
  results.push(["raw Deno.serve", raw]);
  let port = 3302;
  let answerSample: { body: string; headers: Array<[string, string]> } | undefined;
  for (const [name, extra] of variants) {
    const env = {
      DATA_DIR: dataDir,
      DEVNET_BLOCK_SECONDS: "0", // no devnet blocks competing with the measured requests
      PORT: String(port),
      RATE_LIMIT_PAID: "100000000",
      LOG_LEVEL: "warning",
      ...extra,
    };
    const create = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "scripts/keys.ts", "create", "--tier", "paid", "--name", `bench ${name}`, "--init"],
      env,
      stdout: "piped",
    }).output();
    const key = new TextDecoder().decode(create.stdout).trim().split("\n").pop()!;
    const service = spawn(serviceArgsWith(profile), { ...serviceEnv, ...env });
    children.push(service);
    await waitFor(`http://127.0.0.1:${port}/ready`, true);
    await wrk(`http://127.0.0.1:${port}/v1/key`, { apikey: key }); // warm-up
    results.push([`GET /v1/key, ${name}`, await wrk(`http://127.0.0.1:${port}/v1/key`, { apikey: key })]);
    if (name === "memory limiter") {
      // the ceiling for our answer (measured after every service has gone, so it does not change their order)
      const sample = await fetch(`http://127.0.0.1:${port}/v1/key`, { headers: { apikey: key } });
      answerSample = {
        body: await sample.text(),
        headers: [...sample.headers].filter(([h]) => h !== "date" && h !== "content-length"),
      };
      results.push([
        "GET /health (no key; the tip the poll keeps)",
        await wrk(`http://127.0.0.1:${port}/health`),
      ]);
      const stats = `http://127.0.0.1:${port}/v2/explorer/mainnet/stats`;
      await wrk(stats, { apikey: key }); // warm-up: the per-epoch figures computed once
      results.push(["GET explorer stats, cached per tip", await wrk(stats, { apikey: key })]);
    }
    service.kill("SIGTERM");
    await service.status;
    children.splice(children.indexOf(service), 1);
    port++;
  }
  if (answerSample) {
    // a raw server sending /v1/key's own headers and body, with no work at all: Deno's cost per header and
    // per byte is most of the distance between our answer and the plain raw server's
    const { body, headers } = answerSample;
    const ceilingPort = rawPort + 10;
    const ceiling = spawn([
      "eval",
      `const body = ${JSON.stringify(body)}; const headers = ${JSON.stringify(headers)};
       Deno.serve({ port: ${ceilingPort}, hostname: "127.0.0.1", onListen() {} },
         () => new Response(body, { headers }));`,
    ], {});
    children.push(ceiling);
    await waitFor(`http://127.0.0.1:${ceilingPort}/`);
    results.splice(2, 0, [
      `raw Deno.serve sending /v1/key's answer as it is (${headers.length} headers, ${body.length} bytes)`,
      await wrk(`http://127.0.0.1:${ceilingPort}/`),
    ]);
  }
  console.log(`wrk -t2 -c${connections} -d${duration}s on loopback, 2 cores shared by client and server\n`);
  console.log("| target | requests/s | p99 | ratio to raw | non-2xx |");
  console.log("|---|---|---|---|---|");
  for (const [name, r] of results) {
    console.log(
      `| ${name} | ${Math.round(r.rps)} | ${r.p99} | ${(r.rps / raw.rps).toFixed(2)} | ${r.non2xx} |`,
    );
  }
  await reportRows(
    "access",
    results.filter(([, r]) => r !== raw).map(([workload, r]) => ({
      workload,
      ours: r.rps,
      unit: "req/s",
      reference: raw.rps,
      referenceName: "raw Deno.serve",
      p99Ms: latencyMs(r.p99),
      errors: r.non2xx,
    })),
  );
} finally {
  await stopChildren(children);
  await Deno.remove(dataDir, { recursive: true });
}
