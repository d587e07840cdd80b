/**
 * Hostile requests against a running service, one kind at a time, each while a prober asks `/health` every
 * 20 ms from a worker thread: how long the hostile request took and what it got, /health's p50/p99/max meanwhile, and the service's
 * RSS before and after. The figures of the hardening issue's closing note come from here.
 *
 *   deno run -A scripts/attack.ts                       # starts its own service on a fresh embedded DATA_DIR
 *   SERVICE_URL=http://127.0.0.1:3000 APIKEY=cds_… SERVICE_PID=1234 deno run -A scripts/attack.ts
 *
 * With no SERVICE_URL the script seeds a fresh DATA_DIR (first start) under a temporary folder, creates a FREE
 * key with the keys CLI, and removes everything at the end. ATTACK_TIMEOUT_MS bounds each attack (60 s).
 */
import { hostileRequests } from "./hostile_requests.ts";
import { rssMb, type Target, targetService } from "./target_service.ts";

const timeoutMs = Number(Deno.env.get("ATTACK_TIMEOUT_MS") ?? 60_000);

const target: Target = await targetService("attack", "free");

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** Probes /health every 20 ms from a worker thread until stopped; gives the latencies, sorted. */
const probeHealth = () => {
  const worker = new Worker(new URL("./health_prober.ts", import.meta.url), { type: "module" });
  worker.postMessage({ start: target.base, timeoutMs });
  return () =>
    new Promise<Array<number>>((resolve) => {
      worker.onmessage = (event) => {
        worker.terminate();
        resolve((event.data.latencies as Array<number>).sort((a, b) => a - b));
      };
      worker.postMessage({ stop: true });
    });
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
