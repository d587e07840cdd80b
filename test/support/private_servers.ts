/**
 * Private PostgreSQL and Redis servers for tests that stop, kill or delay them: each in a temp dir on a port
 * chosen by the OS, never the shared servers other work relies on. PostgreSQL runs as the `postgres` user when
 * the tests run as root (it refuses to run as root).
 */
import { initdb, postgresBin, runAsPostgres as run } from "../../scripts/cluster/postgres.ts";
import { redisServerArgs } from "../../scripts/cluster/redis.ts";

export { postgresBin };

export const privatePostgresAvailable = (() => {
  try {
    Deno.statSync(`${postgresBin}/pg_ctl`);
    return true;
  } catch {
    return false;
  }
})();

export const redisAvailable = (() => {
  try {
    return new Deno.Command("redis-server", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
})();

/** The low end of the kernel's ephemeral range: outgoing connections and port-0 binds take their ports above it. */
const ephemeralLow = (() => {
  try {
    return Number(Deno.readTextFileSync("/proc/sys/net/ipv4/ip_local_port_range").trim().split(/\s+/)[0]);
  } catch {
    return 32768;
  }
})();

/**
 * A port free now, for a server a test starts (or restarts) there later: below the ephemeral range, so no
 * outgoing connection or port-0 bind takes it while nothing listens (one did, on a loaded CI run: AddrInUse when
 * startup_wait_test's Ogmios stand-in came up 4 s after its port was chosen). Random, so two tests choosing at
 * once rarely meet; any free port when none is found there.
 */
export const freePort = (): number => {
  const low = 10_000;
  const high = Number.isFinite(ephemeralLow) && ephemeralLow > low + 1000 ? ephemeralLow : 32768;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
      return port;
    } catch { /* taken: another */ }
  }
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
};

const isRoot = Deno.uid() === 0;

export interface PrivatePostgres {
  readonly port: number;
  /** A URL for one database of the cluster (trust authentication, no password). */
  readonly url: (database: string) => string;
  readonly start: () => Promise<void>;
  /** `fast` shuts down cleanly; `immediate` is a crash (every backend killed, recovery on the next start). */
  readonly stop: (mode?: "fast" | "immediate") => Promise<void>;
  readonly close: () => Promise<void>;
}

/** Initialises a cluster in a temp dir (not started). */
export const createPrivatePostgres = async (): Promise<PrivatePostgres> => {
  const dir = await Deno.makeTempDir({ prefix: "cds-private-pg-" });
  if (isRoot) await new Deno.Command("chown", { args: ["-R", "postgres", dir] }).output();
  const data = `${dir}/data`;
  const port = freePort();
  let running = false;
  await initdb(data);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const stop = async (mode: "fast" | "immediate" = "fast") => {
    if (!running) return;
    await run(`${postgresBin}/pg_ctl`, ["-D", data, "-m", mode, "-w", "stop"]);
    running = false;
  };
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: async () => {
      await run(`${postgresBin}/pg_ctl`, ["-D", data, "-o", options, "-l", `${dir}/log`, "-w", "start"]);
      running = true;
    },
    stop,
    close: async () => {
      await stop("immediate").catch(() => {});
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
};

export interface PrivateRedis {
  readonly url: string;
  readonly start: () => Promise<void>;
  readonly stop: () => Promise<void>;
}

/** A redis-server child process without persistence; `start` again after `stop` serves the same port. */
export const createPrivateRedis = (): PrivateRedis => {
  const port = freePort();
  let child: Deno.ChildProcess | undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    start: async () => {
      child = new Deno.Command("redis-server", {
        args: redisServerArgs(port),
        stdout: "null",
        stderr: "null",
      }).spawn();
      for (let i = 0; i < 100; i++) {
        try {
          (await Deno.connect({ hostname: "127.0.0.1", port })).close();
          return;
        } catch {
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      throw new Error("redis-server did not start");
    },
    stop: async () => {
      if (!child) return;
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
      await child.status;
      child = undefined;
    },
  };
};

/** Creates `mainnet`, `preprod` (demo chains seeded) and an empty `service` database in a running cluster. */
export const seedPrivateChains = async (pg: PrivatePostgres): Promise<Record<string, string>> => {
  const { default: pgClient } = await import("pg");
  const { Effect } = await import("effect");
  const { seedDemoChainPostgres } = await import("@src/demo_chain/seed.ts");
  const admin = new pgClient.Client({ connectionString: pg.url("postgres") });
  await admin.connect();
  for (const name of ["mainnet", "preprod", "service"]) await admin.query(`create database ${name}`);
  await admin.end();
  await Promise.all(
    (["mainnet", "preprod"] as const).map((network) =>
      Effect.runPromise(seedDemoChainPostgres(pg.url(network), { network, scale: 1 }))
    ),
  );
  return {
    MAINNET_DATABASE_URL: pg.url("mainnet"),
    PREPROD_DATABASE_URL: pg.url("preprod"),
    SERVICE_DATABASE_URL: pg.url("service"),
  };
};

/** A GET with its time, for "/health answers in under 100 ms" checks. */
export const timedGet = async (url: string, headers: HeadersInit = {}) => {
  const started = performance.now();
  const response = await fetch(url, { headers });
  const text = await response.text();
  const ms = performance.now() - started;
  // deno-lint-ignore no-explicit-any
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: response.status, body, ms };
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Requests counted for a key in the service database (read after the service stopped, or alongside it). */
export const usageOf = async (
  env: Record<string, string>,
  keyId: number,
  family?: string,
): Promise<number> => {
  const filter = family ? ` and family = '${family}'` : "";
  const text =
    `select coalesce(sum(requests), 0)::int as n from cds.usage_daily where key_id = ${keyId}${filter}`;
  if (env.SERVICE_DATABASE_URL) {
    const { default: pgClient } = await import("pg");
    const client = new pgClient.Client({ connectionString: env.SERVICE_DATABASE_URL });
    await client.connect();
    try {
      return (await client.query(text)).rows[0].n;
    } finally {
      await client.end();
    }
  }
  const { openPglite } = await import("@layers/sql_pglite.ts");
  const db = await openPglite(`${env.DATA_DIR}/service`);
  try {
    return (await db.query<{ n: number }>(text)).rows[0]!.n;
  } finally {
    await db.close();
  }
};
