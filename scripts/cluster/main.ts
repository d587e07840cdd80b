/**
 * `npm run cluster [-- --port 8080] [-- --check]`: the several-instances deployment on one machine, from
 * nothing: a PostgreSQL primary (initdb) seeded with both demo chains (`npm run seed`) and a streaming replica
 * of it (pg_basebackup), a private Redis, three service instances (src/main.ts) reading the chains through the
 * replica and the primary (two URLs each) and sharing Redis and the service database, and HAProxy (scripts/cluster/haproxy.cfg, the file compose.yaml uses) in front, routing by `/ready`.
 * It prints the endpoints, a new API key and the replica's lag, then runs until Ctrl-C; `--check` instead
 * sends the README's requests through HAProxy, stops the replica under traffic and starts it again, stops one
 * instance under traffic, and exits (non-zero on a failure). Whatever way it ends, it stops what it started (by
 * pid) and removes its temp dir. `--instances N` runs fewer instances, `--instance-env NAME=VALUE` adds to their
 * settings and `--describe FILE` writes the endpoints as JSON once ready: harness.ts runs it so for the cluster
 * test and `npm run bench:cluster`.
 */
import { parseArgs } from "node:util";
import pg from "pg";
import { giveToPostgres, type Server, startPrimary, startReplica } from "./postgres.ts";
import { type Child, onStop, spawn, stopAll } from "./processes.ts";
import { redisServerArgs } from "./redis.ts";
import type { ClusterDescription } from "./harness.ts";
import { haproxyConfig, instanceEnv, instanceNames, proxyEnv, serviceArgs } from "./topology.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    port: { type: "string", default: "8080" },
    check: { type: "boolean", default: false },
    // for the cluster test and bench:cluster: fewer instances, extra settings for them, the endpoints as JSON
    instances: { type: "string", default: "3" },
    "instance-env": { type: "string", multiple: true, default: [] },
    describe: { type: "string" },
  },
  strict: true,
});
const instanceCount = Number(values.instances);
if (![1, 2, 3].includes(instanceCount)) {
  console.error(`cluster: --instances must be 1, 2 or 3, got ${values.instances}`);
  Deno.exit(2);
}
const extraEnv = Object.fromEntries(values["instance-env"].map((pair) => {
  const eq = pair.indexOf("=");
  if (eq < 1) {
    console.error(`cluster: --instance-env takes NAME=VALUE, got ${pair}`);
    Deno.exit(2);
  }
  return [pair.slice(0, eq), pair.slice(eq + 1)];
}));
const proxyPort = Number(values.port);
if (!Number.isInteger(proxyPort) || proxyPort < 0 || proxyPort > 65535) {
  console.error(`cluster: --port must be a port number (0 = any free port), got ${values.port}`);
  Deno.exit(2);
}

const freePort = (): number => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
};

const started = performance.now();
const seconds = (from = started) => `${((performance.now() - from) / 1000).toFixed(1)} s`;
const say = (text: string) => console.log(`cluster [${seconds()}] ${text}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const finish = async (code: number) => {
  say("stopping everything it started");
  await stopAll();
  say("stopped");
  Deno.exit(code);
};
for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, () => finish(130));

const dir = await Deno.makeTempDir({ prefix: "cds-cluster-" });
onStop("temp dir", () => Deno.remove(dir, { recursive: true }));
await giveToPostgres(dir);

const deno = Deno.execPath();

/** Runs a Deno script of this repository to its end; its output goes to `<dir>/<name>.log`. */
const runScript = async (name: string, args: Array<string>, env: Record<string, string> = {}) => {
  const child = spawn(name, deno, ["run", "-A", ...args], { NO_COLOR: "1", ...env }, `${dir}/${name}.log`);
  const code = await child.exited;
  if (code !== 0) throw new Error(`${name} exited with ${code}:\n${child.lines.slice(-20).join("\n")}`);
  return child.lines;
};

const query = async (url: string, text: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
};

/** Bytes and seconds the replica is behind the primary, as the primary sees it. */
const replicaLag = async (primary: Server) => {
  const [row] = await query(
    primary.url("postgres"),
    `select state, pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::int8 as bytes,
            coalesce(extract(epoch from replay_lag), 0)::float8 as seconds
       from pg_stat_replication`,
  );
  return row ? `${row.state}, ${row.bytes} bytes, ${row.seconds} s behind` : "not connected";
};

const waitFor = async (what: string, ok: () => Promise<boolean>, child?: Child, timeoutMs = 180_000) => {
  const until = performance.now() + timeoutMs;
  let exited = false;
  child?.exited.then(() => exited = true);
  while (performance.now() < until) {
    if (exited) throw new Error(`${what}: ${child!.name} exited:\n${child!.lines.slice(-20).join("\n")}`);
    if (await ok().catch(() => false)) return;
    await sleep(200);
  }
  throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
};

const answers = async (url: string, init?: RequestInit) => {
  const response = await fetch(url, init);
  await response.body?.cancel();
  return response.status === 200;
};

try {
  // PostgreSQL: the primary, the chains and the service database in it, then the replica
  let step = performance.now();
  const primary = await startPrimary(dir, freePort());
  onStop("primary", primary.stop);
  say(`primary up on port ${primary.port} (pid ${await primary.pid()}) in ${seconds(step)}`);
  step = performance.now();
  for (const name of ["mainnet", "preprod", "service"]) {
    await query(primary.url("postgres"), `create database ${name}`);
  }
  await Promise.all(
    ["mainnet", "preprod"].map((network) =>
      runScript(`seed-${network}`, [
        "scripts/seed.ts",
        "--network",
        network,
        "--database-url",
        primary.url(network),
      ])
    ),
  );
  say(`both demo chains seeded (npm run seed) in ${seconds(step)}`);
  step = performance.now();
  const replica = await startReplica(dir, primary, freePort());
  onStop("replica", replica.stop);
  say(`replica (pg_basebackup) up on port ${replica.port} (pid ${await replica.pid()}) in ${seconds(step)}`);

  // Redis: a private one, so the cluster's rate budgets are its own
  const redisPort = freePort();
  const redis = spawn(
    "redis",
    "redis-server",
    redisServerArgs(redisPort),
    {},
    `${dir}/redis.log`,
  );
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  await waitFor("redis", async () => {
    (await Deno.connect({ hostname: "127.0.0.1", port: redisPort })).close();
    return true;
  }, redis);

  // three instances, the same configuration but their port and DATA_DIR
  step = performance.now();
  const databases = {
    mainnet: [replica.url("mainnet"), primary.url("mainnet")],
    preprod: [replica.url("preprod"), primary.url("preprod")],
    service: primary.url("service"),
  };
  const instances = await Promise.all(
    instanceNames.slice(0, instanceCount).map(async (name) => {
      const port = freePort();
      const dataDir = `${dir}/${name}`;
      await Deno.mkdir(dataDir);
      const env = { ...instanceEnv(databases, redisUrl, port, dataDir), ...extraEnv };
      const child = spawn(name, deno, [...serviceArgs], env, `${dir}/${name}.log`);
      await waitFor(name, () => answers(`http://127.0.0.1:${port}/ready`), child);
      return { name, port, child };
    }),
  );
  say(
    `${instances.length} instances ready in ${seconds(step)}: ${
      instances.map((i) => `${i.name} :${i.port}`).join(", ")
    }`,
  );

  // HAProxy in front, with the configuration compose.yaml uses
  step = performance.now();
  const listen = `127.0.0.1:${proxyPort === 0 ? freePort() : proxyPort}`;
  const haproxy = spawn(
    "haproxy",
    "/usr/sbin/haproxy",
    ["-db", "-f", haproxyConfig],
    // servers without an instance point where nothing listens: their checks fail, so HAProxy never uses them
    proxyEnv(listen, instanceNames.map((_, i) => `127.0.0.1:${instances[i]?.port ?? freePort()}`)),
    `${dir}/haproxy.log`,
  );
  const base = `http://${listen}`;
  // every instance in rotation: the proxy's health checks passed for all three
  await waitFor(
    "haproxy",
    async () => {
      const seen = new Set<string>();
      for (let i = 0; i < 6; i++) {
        const response = await fetch(`${base}/ready`);
        await response.body?.cancel();
        if (response.status === 200) seen.add(response.headers.get("x-served-by") ?? "");
      }
      return seen.size === instances.length;
    },
    haproxy,
    30_000,
  );
  say(`haproxy up with all ${instances.length} instances in rotation in ${seconds(step)}`);

  const key = (await runScript("keys", ["scripts/keys.ts", "create", "--tier", "free", "--name", "cluster"], {
    SERVICE_DATABASE_URL: databases.service,
  })).at(-1)!.trim();
  await sleep(500);

  console.log(`
cluster ready in ${seconds()} (temp dir ${dir}, logs there)
  HAProxy      ${base}  (pid ${haproxy.pid})
  instances    ${
    instances.map((i) => `http://127.0.0.1:${i.port} (pid ${i.child.pid})`).join("\n               ")
  }
  primary      ${primary.url("mainnet")} ${primary.url("preprod")} ${primary.url("service")}
  replica      ${replica.url("mainnet")} ${replica.url("preprod")}  (${await replicaLag(primary)})
  Redis        ${redisUrl}  (pid ${redis.pid})
  a key        ${key}

  curl -s -H "apikey: ${key}" "${base}/v2/explorer/mainnet/block/1000"
`);

  if (values.describe) {
    const description: ClusterDescription = {
      base,
      key,
      dir,
      haproxyPid: haproxy.pid,
      instances: instances.map((i) => ({ name: i.name, port: i.port, pid: i.child.pid })),
      redisUrl,
      databases,
      replica: { mainnet: replica.url("mainnet"), preprod: replica.url("preprod") },
      primaryPid: await primary.pid(),
      replicaPid: await replica.pid(),
      redisPid: redis.pid,
    };
    await Deno.writeTextFile(values.describe, JSON.stringify(description));
  }

  if (values.check) {
    const { runChecks } = await import("./check.ts");
    const failures = await runChecks({ base, key, instances, primary, replica, replicaLag, say });
    say(failures.length === 0 ? "check: all passed" : `check: ${failures.length} failed`);
    for (const failure of failures) console.error(`  FAILED ${failure}`);
    await finish(failures.length === 0 ? 0 : 1);
  }
  say("running; Ctrl-C stops everything");
  // the instances or the proxy dying is reported, the rest keeps running
  for (const child of [haproxy, ...instances.map((i) => i.child)]) {
    child.exited.then((code) => say(`${child.name} (pid ${child.pid}) exited with ${code}`));
  }
  await new Promise(() => {});
} catch (error) {
  console.error(`cluster: ${error instanceof Error ? error.message : error}`);
  await finish(1);
}
