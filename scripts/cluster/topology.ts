/**
 * What the harness runs, as values compose.yaml and the Dockerfile are checked against
 * (test/deployment_test.ts): the service's command, each instance's environment, HAProxy's configuration file
 * and the environment it reads.
 */

/**
 * `npm start`'s arguments to deno (package.json), also the Dockerfile's CMD. The V8 heap limit is far above
 * what the service holds (100-250 MB live under load); it is there because under a limit below 2 GB V8 starts
 * a major collection when the old space has grown about 1.6 times past what the last one left, instead of up
 * to 4 times (the heap was 470-565 MB under the soak, 210-290 MB with it, for the same CPU time: layers/README).
 * The young generation is held to 8 MB semi-spaces: V8 otherwise grows each isolate's (the main thread's and
 * every PGlite worker's) to 64 MB under load and keeps it; the soak's RSS fell by about 50 MB per busy
 * isolate for the same CPU per request (layers/README).
 */
export const serviceArgs: ReadonlyArray<string> = [
  "run",
  "-A",
  "--v8-flags=--max-old-space-size=1024,--max-semi-space-size=8",
  "src/main.ts",
];

/**
 * `npm start`'s environment before its command (package.json, the Dockerfile's ENV): glibc's allocator keeps
 * one arena per thread that ever allocated (up to 8 per core), each holding freed memory; two arenas cut the
 * embedded soak's RSS by about 45 MB (layers/native_memory.ts trims what they keep). Allocations of 128 KiB and
 * more are mapped on their own and unmapped when freed (glibc otherwise raises that threshold as large blocks
 * are freed, and they then stay in the arenas): about 12 MB less in the soak.
 */
export const serviceEnv: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: "2",
  MALLOC_MMAP_THRESHOLD_: "131072",
};

/** `serviceArgs` with more flags for deno (a CPU profile, say) before the module. */
export const serviceArgsWith = (denoFlags: ReadonlyArray<string>): Array<string> => [
  ...serviceArgs.slice(0, -1),
  ...denoFlags,
  serviceArgs[serviceArgs.length - 1]!,
];

/** The one HAProxy configuration, relative to the repository root (compose.yaml mounts it). */
export const haproxyConfig = "scripts/cluster/haproxy.cfg";

/** Server names in haproxy.cfg; each one's address is in the variable of its name in capitals. */
export const instanceNames: ReadonlyArray<string> = ["cds1", "cds2", "cds3"];

export interface Databases {
  /** Each chain's URLs: the replica's and the primary's; reads are spread over those in use. */
  readonly mainnet: ReadonlyArray<string>;
  readonly preprod: ReadonlyArray<string>;
  readonly service: string;
}

/** Every instance's environment: the same databases and Redis, its own port and DATA_DIR. */
export const instanceEnv = (
  databases: Databases,
  redisUrl: string,
  port: number,
  dataDir: string,
): Record<string, string> => ({
  ...serviceEnv,
  // the chains through the replica and the primary (layers/chain_replicas.ts); the service database is written
  MAINNET_DATABASE_URL: databases.mainnet.join(","),
  PREPROD_DATABASE_URL: databases.preprod.join(","),
  SERVICE_DATABASE_URL: databases.service,
  REDIS_URL: redisUrl,
  HOST: "127.0.0.1",
  PORT: String(port),
  DATA_DIR: dataDir,
  // the proxy's address: X-Forwarded-For is read from it only
  TRUSTED_PROXIES: "127.0.0.1",
  NO_COLOR: "1",
});

/** HAProxy's environment: where it listens and each instance's address. */
export const proxyEnv = (listen: string, addresses: ReadonlyArray<string>): Record<string, string> => ({
  CDS_LISTEN: listen,
  ...Object.fromEntries(instanceNames.map((name, i) => [name.toUpperCase(), addresses[i]!])),
});
