/**
 * The cluster harness (main.ts) as a child process, for the cluster test and `npm run bench:cluster`: started
 * with `--port 0 --describe FILE`, it is ready when FILE holds its endpoints; `stop` sends it SIGTERM, on which
 * it stops everything it started and removes its temp dir.
 */
import { eachLine } from "../lines.ts";
import { repoRoot } from "./processes.ts";
import type { Databases } from "./topology.ts";

/** What `--describe FILE` writes once the cluster is ready. */
export interface ClusterDescription {
  /** HAProxy's address (http://host:port). */
  readonly base: string;
  /** A FREE key made by `npm run keys` for the harness. */
  readonly key: string;
  readonly dir: string;
  readonly haproxyPid: number;
  readonly instances: ReadonlyArray<{ readonly name: string; readonly port: number; readonly pid: number }>;
  readonly redisUrl: string;
  readonly databases: Databases;
  readonly replica: { readonly mainnet: string; readonly preprod: string };
  readonly primaryPid: number;
  readonly replicaPid: number;
  readonly redisPid: number;
}

export interface RunningCluster extends ClusterDescription {
  /** The harness's output so far. */
  readonly lines: Array<string>;
  readonly stop: () => Promise<void>;
}

export interface HarnessOptions {
  readonly instances?: 1 | 2 | 3;
  /** Extra settings of every instance. */
  readonly instanceEnv?: Record<string, string>;
  readonly timeoutMs?: number;
}

export const runCluster = async (options: HarnessOptions = {}): Promise<RunningCluster> => {
  const describeFile = await Deno.makeTempFile({ prefix: "cds-cluster-", suffix: ".json" });
  const args = [
    "run",
    "-A",
    "scripts/cluster/main.ts",
    "--port",
    "0",
    "--instances",
    String(options.instances ?? 3),
    "--describe",
    describeFile,
    ...Object.entries(options.instanceEnv ?? {}).flatMap(([k, v]) => ["--instance-env", `${k}=${v}`]),
  ];
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: repoRoot,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: Array<string> = [];
  const pumps = Promise.all([child.stdout, child.stderr].map((s) => eachLine(s, (l) => lines.push(l))));
  let exited = false;
  const status = child.status.then(async (s) => {
    exited = true;
    await pumps;
    return s;
  });
  const stop = async () => {
    if (!exited) child.kill("SIGTERM");
    await status;
    await Deno.remove(describeFile).catch(() => {});
  };
  const until = performance.now() + (options.timeoutMs ?? 300_000);
  while (performance.now() < until) {
    const text = await Deno.readTextFile(describeFile).catch(() => "");
    const description = (() => {
      try {
        return JSON.parse(text) as ClusterDescription; // none yet, or half written
      } catch {
        return undefined;
      }
    })();
    if (description) return { ...description, lines, stop };
    if (exited) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`the cluster did not start:\n${lines.slice(-30).join("\n")}`);
};

/** `npm run keys -- create` on the cluster's service database (announced on its Redis); the new key's secret. */
export const createKey = async (cluster: ClusterDescription, tier: "free" | "paid", name: string) => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "scripts/keys.ts",
      "create",
      "--tier",
      tier,
      "--name",
      name,
      "--account",
      "cluster-test",
    ],
    cwd: repoRoot,
    env: { SERVICE_DATABASE_URL: cluster.databases.service, REDIS_URL: cluster.redisUrl, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.code !== 0) throw new Error(`keys create: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!.trim();
};
