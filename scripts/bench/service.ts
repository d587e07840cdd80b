/**
 * Our service, as the database benches start it: both networks on one chain database, its own service database
 * created for the run (dropped at `stop`), a paid key with no rate limit, no Redis, warnings only.
 */
import { serviceArgsWith, serviceEnv } from "../cluster/topology.ts";
import pg from "pg";

export interface BenchService {
  readonly base: string;
  /** The run's key, for the `apikey` (or Blockfrost's `project_id`) header. */
  readonly key: string;
  readonly stop: () => Promise<void>;
}

export interface BenchServiceOptions {
  readonly databaseUrl: string;
  readonly port: number;
  /** Extra arguments to `deno run` (BENCH_CPU_PROF's `--cpu-prof`). */
  readonly denoArgs?: ReadonlyArray<string>;
  /** More settings for the service (GraphQL's own rate limit lifted, say). */
  readonly env?: Readonly<Record<string, string>>;
}

export const startBenchService = async (options: BenchServiceOptions): Promise<BenchService> => {
  const serviceDb = `bench_service_${Date.now()}`;
  const adminUrl = new URL(options.databaseUrl);
  adminUrl.pathname = "/postgres";
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`create database ${serviceDb}`);
  const serviceUrl = new URL(options.databaseUrl);
  serviceUrl.pathname = `/${serviceDb}`;
  const dataDir = await Deno.makeTempDir();
  const env = {
    ...serviceEnv,
    DATA_DIR: dataDir,
    PORT: String(options.port),
    MAINNET_DATABASE_URL: options.databaseUrl,
    PREPROD_DATABASE_URL: options.databaseUrl,
    SERVICE_DATABASE_URL: serviceUrl.toString(),
    RATE_LIMIT_PAID: "0",
    REDIS_URL: "",
    LOG_LEVEL: "warning",
    NO_COLOR: "1",
    ...options.env,
  };
  const cleanUp = async () => {
    await admin.query(`drop database if exists ${serviceDb} with (force)`);
    await admin.end();
    await Deno.remove(dataDir, { recursive: true });
  };
  let service: Deno.ChildProcess | undefined;
  try {
    const created = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "scripts/keys.ts", "create", "--tier", "paid", "--name", "bench", "--init"],
      env,
      stdout: "piped",
    }).output();
    const key = new TextDecoder().decode(created.stdout).trim().split("\n").pop()!;
    service = new Deno.Command(Deno.execPath(), {
      args: serviceArgsWith(options.denoArgs ?? []),
      env,
      stdout: "null",
    }).spawn();
    const base = `http://127.0.0.1:${options.port}`;
    // the port opens before the chain databases are connected, and answers 503 meanwhile: not to be measured
    for (let i = 0;; i++) {
      try {
        const r = await fetch(`${base}/ready`);
        await r.body?.cancel();
        if (r.status === 200) break;
      } catch { /* not listening yet */ }
      if (i === 600) throw new Error(`${base}/ready did not answer 200 within 2 minutes`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const running = service;
    return {
      base,
      key,
      stop: async () => {
        running.kill("SIGTERM");
        await running.status;
        await cleanUp();
      },
    };
  } catch (error) {
    if (service) {
      service.kill("SIGTERM");
      await service.status;
    }
    await cleanUp();
    throw error;
  }
};
