/**
 * What recording the request metrics costs per answer, in nanoseconds: the router's work for them (the route
 * family kept in a WeakMap for the request, read back once answered) and the counter and histogram updates, on
 * real Request objects. For scale, the same loop's `new URL(request.url)` (which the router does once per
 * request anyway) is timed too; and a scrape's rendering, with every family and a few statuses recorded.
 *   deno run -A scripts/bench_metrics.ts
 */
import { makeMetricsRegistry } from "@layers/metrics.ts";
import { usageFamilies } from "@src/domain/families.ts";
import { makeRequestMetrics } from "@src/server/metrics_http.ts";

const n = Number(Deno.env.get("BENCH_ITERATIONS") ?? "1000000");
const families = [...usageFamilies, "public", "none"];
const statuses = [200, 200, 200, 200, 404, 401, 429, 200];
const requests = Array.from(
  { length: 1024 },
  (_, i) => new Request(`http://127.0.0.1/v2/explorer/mainnet/stats?i=${i}`),
);

const time = (label: string, body: (i: number) => void) => {
  for (let i = 0; i < n / 10; i++) body(i); // warm up
  const started = performance.now();
  for (let i = 0; i < n; i++) body(i);
  const ns = ((performance.now() - started) * 1e6) / n;
  console.log(`${label.padEnd(58)} ${ns.toFixed(0).padStart(6)} ns per request`);
  return ns;
};

const metrics = makeMetricsRegistry();
const record = makeRequestMetrics(metrics);
const kept = new WeakMap<Request, string>();
let sink = 0;

time("baseline: new URL(request.url) (the router does this anyway)", (i) => {
  sink += new URL(requests[i & 1023]!.url).pathname.length;
});
const recording = time("metrics: WeakMap set + get, counter and histogram update", (i) => {
  const request = requests[i & 1023]!;
  kept.set(request, families[i % families.length]!);
  record(kept.get(request) ?? "none", statuses[i & 7]!, (i % 5000) / 10);
});
time("metrics: counter and histogram update only", (i) => {
  record(families[i % families.length]!, statuses[i & 7]!, (i % 5000) / 10);
});

const renders = 200;
const started = performance.now();
let bytes = 0;
for (let i = 0; i < renders; i++) bytes = metrics.render().length;
console.log(
  `a scrape's rendering (${bytes} bytes): ${((performance.now() - started) / renders).toFixed(2)} ms`,
);
console.log(
  `at 5,000 requests a second, recording costs ${(recording * 5000 / 1e6).toFixed(2)} ms of CPU per second ` +
    `(${(recording * 5000 / 1e9 * 100).toFixed(3)} %)`,
);
if (sink < 0) console.log(sink);
