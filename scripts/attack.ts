/**
 * Hostile requests against a running service, one kind at a time, each while a prober asks `/health` every
 * 20 ms: how long the hostile request took and what it got, /health's p50/p99/max meanwhile, and the service's
 * RSS before and after. The figures of the hardening issue's closing note come from here.
 *
 *   deno run -A scripts/attack.ts                       # starts its own service on a fresh embedded DATA_DIR
 *   SERVICE_URL=http://127.0.0.1:3000 APIKEY=cds_… SERVICE_PID=1234 deno run -A scripts/attack.ts
 *
 * With no SERVICE_URL the script seeds a fresh DATA_DIR (first start) under a temporary folder, creates a FREE
 * key with the keys CLI, and removes everything at the end. ATTACK_TIMEOUT_MS bounds each attack (60 s).
 */
import { join } from "node:path";
import { hostileRequests } from "./hostile_requests.ts";

const timeoutMs = Number(Deno.env.get("ATTACK_TIMEOUT_MS") ?? 60_000);

interface Target {
  readonly base: string;
  readonly key: string;
  readonly pid: number | undefined;
  readonly stop: () => Promise<void>;
}

const rssMb = async (pid: number | undefined): Promise<number | undefined> => {
  if (pid === undefined) return undefined;
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    const kb = Number(status.match(/VmRSS:\s+(\d+)/)?.[1]);
    return Math.round(kb / 1024);
  } catch {
    return undefined;
  }
};

const startOwnService = async (): Promise<Target> => {
  const dir = await Deno.makeTempDir({ prefix: "cds-attack-" });
  const env = { DATA_DIR: join(dir, "data"), PORT: "0", DEVNET_BLOCK_SECONDS: "0", NO_COLOR: "1" };
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "src/main.ts"],
    env,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let base: string | undefined;
  while (!base) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the service exited before listening");
    buffer += value;
    base = buffer.match(/listening on (http:\/\/\S+?)"/)?.[1];
  }
  // keep draining the logs so the service never blocks on a full pipe
  (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })();
  const created = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/keys.ts", "create", "--tier", "free", "--name", "attack"],
    env,
    stdout: "piped",
  }).output();
  const key = new TextDecoder().decode(created.stdout).trim().split("\n").at(-1)!;
  return {
    base,
    key,
    pid: child.pid,
    stop: async () => {
      child.kill("SIGTERM");
      await child.status;
      await Deno.remove(dir, { recursive: true });
    },
  };
};

const target: Target = Deno.env.get("SERVICE_URL")
  ? {
    base: Deno.env.get("SERVICE_URL")!,
    key: Deno.env.get("APIKEY") ?? "",
    pid: Deno.env.get("SERVICE_PID") ? Number(Deno.env.get("SERVICE_PID")) : undefined,
    stop: () => Promise.resolve(),
  }
  : await startOwnService();

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** Probes /health every 20 ms until stopped; gives each probe's latency (a probe still waiting counts too). */
const probeHealth = () => {
  const latencies: Array<number> = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      try {
        await (await fetch(`${target.base}/health`, { signal: AbortSignal.timeout(timeoutMs) })).body
          ?.cancel();
      } catch { /* a timeout is a latency too */ }
      latencies.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return latencies.sort((a, b) => a - b);
  };
};

const attacks = hostileRequests(target, timeoutMs);

console.log(
  `service ${target.base}; each attack bounded by ${timeoutMs / 1000} s; /health probed every 20 ms\n`,
);
console.log("| attack | took | answer | /health p50 | p99 | max | RSS before → after |");
console.log("| --- | --- | --- | --- | --- | --- | --- |");
try {
  for (const attack of attacks) {
    const before = await rssMb(target.pid);
    const stop = probeHealth();
    const started = performance.now();
    let answer: string;
    try {
      answer = await attack.run();
    } catch (error) {
      answer = `failed: ${error instanceof Error ? error.message : error}`;
    }
    const took = performance.now() - started;
    const health = await stop();
    const after = await rssMb(target.pid);
    const ms = (v: number) => `${v.toFixed(v < 10 ? 1 : 0)} ms`;
    console.log(
      `| ${attack.name} | ${ms(took)} | ${answer.slice(0, 100).replaceAll("|", "\\|")} | ${
        ms(percentile(health, 0.5))
      } | ${ms(percentile(health, 0.99))} | ${ms(health.at(-1) ?? NaN)} | ${before ?? "?"} → ${
        after ?? "?"
      } MB |`,
    );
  }
} finally {
  await target.stop();
}
