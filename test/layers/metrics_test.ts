/** The registry's exposition text: series by label values, escaping, cumulative buckets, collected figures. */
import assert from "node:assert/strict";
import { makeMetricsRegistry } from "@layers/metrics.ts";

Deno.test("counters and histograms render in Prometheus' text format", () => {
  const metrics = makeMetricsRegistry();
  const requests = metrics.counter("t_requests_total", "Requests.\nBy family.", ["family", "status"]);
  requests.labels("rest", 200).inc();
  requests.labels("rest", 200).inc(2);
  requests.labels("rest", "200").inc(); // a number and its text are one series
  requests.labels('we"ird\\', 404).inc();
  assert.equal(
    metrics.counter("t_requests_total", "ignored", ["family", "status"]),
    requests,
    "same name, same",
  );
  const latency = metrics.histogram("t_seconds", "Latency.", ["family"], [0.1, 1]);
  for (const v of [0.05, 0.1, 0.5, 1, 3]) latency.labels("rest").observe(v);
  metrics.collect("t_open", "Open.", "gauge", ["database"], () => [[["mainnet"], 3], [["preprod"], 1]]);
  metrics.collect("t_broken", "Broken.", "gauge", [], () => {
    throw new Error("gone");
  });
  assert.throws(() => requests.labels("rest"), /expected 2 label values/);
  const text = metrics.render();
  const lines = text.trimEnd().split("\n");
  assert.ok(lines.includes("# HELP t_requests_total Requests.\\nBy family."));
  assert.ok(lines.includes("# TYPE t_requests_total counter"));
  assert.ok(lines.includes('t_requests_total{family="rest",status="200"} 4'));
  assert.equal(lines.filter((l) => l.startsWith('t_requests_total{family="rest"')).length, 1);
  assert.ok(lines.includes('t_requests_total{family="we\\"ird\\\\",status="404"} 1'));
  assert.ok(lines.includes("# TYPE t_seconds histogram"));
  assert.deepEqual(lines.filter((l) => l.startsWith("t_seconds")), [
    't_seconds_bucket{family="rest",le="0.1"} 2', // a value on a bound is counted in it (le)
    't_seconds_bucket{family="rest",le="1"} 4',
    't_seconds_bucket{family="rest",le="+Inf"} 5',
    't_seconds_sum{family="rest"} 4.65',
    't_seconds_count{family="rest"} 5',
  ]);
  assert.ok(lines.includes('t_open{database="mainnet"} 3'));
  assert.ok(lines.includes('t_open{database="preprod"} 1'));
  assert.ok(
    lines.some((l) => l.startsWith("# a metric could not be read: gone")),
    "a failing reader is a comment",
  );
});
