/**
 * `Metrics`: the process's counters, histograms and gauges, rendered in Prometheus' text exposition format
 * (version 0.0.4). Recording is cheap enough for every request: a labelled series is found by walking small maps
 * keyed by its label values (no string built per call) and counted in place. Gauges are read when scraped, from
 * the parts that hold the figures (`collect`). The layer also samples the process itself: memory, uptime and the
 * event loop's lag (how late a 100 ms timer fires). Exposure is the server's business (`METRICS_TOKEN`,
 * `METRICS_PORT`); recording is always on.
 */
import { Context, Effect, Layer } from "effect";

export type LabelValue = string | number;

export interface CounterSeries {
  readonly inc: (by?: number) => void;
}

export interface HistogramSeries {
  readonly observe: (value: number) => void;
}

export interface Counter {
  /** The series of these label values, in the order of the counter's label names. */
  readonly labels: (...values: ReadonlyArray<LabelValue>) => CounterSeries;
}

export interface Histogram {
  readonly labels: (...values: ReadonlyArray<LabelValue>) => HistogramSeries;
}

/** One sample of a collected metric: its label values (in label-name order) and its value. */
export type Sample = readonly [ReadonlyArray<LabelValue>, number];

export interface MetricsShape {
  /** A counter; asking again for the same name returns the same counter. */
  readonly counter: (name: string, help: string, labelNames: ReadonlyArray<string>) => Counter;
  readonly histogram: (
    name: string,
    help: string,
    labelNames: ReadonlyArray<string>,
    buckets: ReadonlyArray<number>,
  ) => Histogram;
  /** Figures read at scrape time (gauges, or counters kept by their owner); a later call replaces the reader. */
  readonly collect: (
    name: string,
    help: string,
    type: "gauge" | "counter",
    labelNames: ReadonlyArray<string>,
    read: () => Iterable<Sample>,
  ) => void;
  /** The exposition text (`text/plain; version=0.0.4`). */
  readonly render: () => string;
}

export class Metrics extends Context.Tag("Metrics")<Metrics, MetricsShape>() {}

export const expositionContentType = "text/plain; version=0.0.4; charset=utf-8";

/** Request latencies: 5 ms to 10 s. */
export const latencyBuckets: ReadonlyArray<number> = [
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];

const escapeLabel = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
const escapeHelp = (v: string) => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
const formatValue = (v: number) =>
  Number.isNaN(v) ? "NaN" : v === Infinity ? "+Inf" : v === -Infinity ? "-Inf" : String(v);

const labelText = (names: ReadonlyArray<string>, values: ReadonlyArray<LabelValue>, extra = ""): string => {
  const parts = names.map((n, i) => `${n}="${escapeLabel(String(values[i] ?? ""))}"`);
  if (extra !== "") parts.push(extra);
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
};

/**
 * Series by label values, found by walking one map level per label: a lookup allocates nothing, so the request
 * path can ask for `(family, status)` on every answer.
 */
const makeSeriesTree = <S>(arity: number, create: (values: ReadonlyArray<LabelValue>) => S) => {
  const root = new Map<string, unknown>();
  const all: Array<{ readonly values: ReadonlyArray<LabelValue>; readonly series: S }> = [];
  // 200 and "200" are one series (V8 keeps recent numbers' strings: no allocation for a status)
  const keyOf = (v: LabelValue) => typeof v === "number" ? String(v) : v;
  const find = (values: ReadonlyArray<LabelValue>): S => {
    if (values.length !== arity) throw new Error(`expected ${arity} label values, got ${values.length}`);
    let level = root;
    for (let i = 0; i < arity - 1; i++) {
      const key = keyOf(values[i]!);
      let next = level.get(key) as Map<string, unknown> | undefined;
      if (!next) level.set(key, next = new Map());
      level = next;
    }
    const key = arity === 0 ? "" : keyOf(values[arity - 1]!);
    let series = level.get(key) as S | undefined;
    if (series === undefined) {
      const copy = values.map(String);
      series = create(copy);
      level.set(key, series);
      all.push({ values: copy, series });
    }
    return series;
  };
  return { find, all };
};

interface Rendered {
  readonly render: (out: Array<string>) => void;
}

export const makeMetricsRegistry = (): MetricsShape => {
  const metrics = new Map<string, Rendered & { readonly kind: string; readonly handle: unknown }>();
  const header = (out: Array<string>, name: string, help: string, type: string) =>
    out.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);

  const counter: MetricsShape["counter"] = (name, help, labelNames) => {
    const existing = metrics.get(name);
    if (existing?.kind === "counter") return existing.handle as Counter;
    const tree = makeSeriesTree(labelNames.length, () => {
      const series = {
        value: 0,
        inc: (by = 1) => {
          series.value += by;
        },
      };
      return series;
    });
    const handle: Counter = { labels: (...values) => tree.find(values) };
    metrics.set(name, {
      kind: "counter",
      handle,
      render: (out) => {
        header(out, name, help, "counter");
        for (const { values, series } of tree.all) {
          out.push(`${name}${labelText(labelNames, values)} ${formatValue(series.value)}`);
        }
      },
    });
    return handle;
  };

  const histogram: MetricsShape["histogram"] = (name, help, labelNames, buckets) => {
    const existing = metrics.get(name);
    if (existing?.kind === "histogram") return existing.handle as Histogram;
    const bounds = Float64Array.from(buckets);
    const tree = makeSeriesTree(labelNames.length, () => {
      // per bucket (not cumulative: summed when rendered); the last one is +Inf
      const counts = new Float64Array(bounds.length + 1);
      const series = {
        counts,
        sum: 0,
        observe: (value: number) => {
          let i = 0;
          while (i < bounds.length && value > bounds[i]!) i++;
          counts[i]!++;
          series.sum += value;
        },
      };
      return series;
    });
    const handle: Histogram = { labels: (...values) => tree.find(values) };
    metrics.set(name, {
      kind: "histogram",
      handle,
      render: (out) => {
        header(out, name, help, "histogram");
        for (const { values, series } of tree.all) {
          let cumulative = 0;
          for (let i = 0; i <= bounds.length; i++) {
            cumulative += series.counts[i]!;
            const le = i < bounds.length ? formatValue(bounds[i]!) : "+Inf";
            out.push(`${name}_bucket${labelText(labelNames, values, `le="${le}"`)} ${cumulative}`);
          }
          out.push(`${name}_sum${labelText(labelNames, values)} ${formatValue(series.sum)}`);
          out.push(`${name}_count${labelText(labelNames, values)} ${cumulative}`);
        }
      },
    });
    return handle;
  };

  const collect: MetricsShape["collect"] = (name, help, type, labelNames, read) => {
    metrics.set(name, {
      kind: `collected ${type}`,
      handle: undefined,
      render: (out) => {
        header(out, name, help, type);
        for (const [values, value] of read()) {
          out.push(`${name}${labelText(labelNames, values)} ${formatValue(value)}`);
        }
      },
    });
  };

  const render = () => {
    const out: Array<string> = [];
    for (const metric of metrics.values()) {
      try {
        metric.render(out);
      } catch (e) { // a reader that fails must not take the whole scrape with it
        out.push(`# ${escapeHelp(`a metric could not be read: ${e instanceof Error ? e.message : e}`)}`);
      }
    }
    return out.join("\n") + "\n";
  };

  return { counter, histogram, collect, render };
};

/** How often the event loop is probed, and how long the worst lag seen is reported for. */
const lagProbeMs = 100;
const lagWindowMs = 30_000;

/**
 * The process's own figures: resident memory, heap, uptime, and the event loop's lag (a 100 ms timer's lateness,
 * as a histogram and as the worst of the last 30 to 60 s).
 */
const sampleProcess = (metrics: MetricsShape): () => void => {
  metrics.collect("process_resident_memory_bytes", "Resident memory size in bytes.", "gauge", [], () => {
    const m = Deno.memoryUsage();
    return [[[], m.rss]];
  });
  metrics.collect("process_heap_used_bytes", "JavaScript heap in use, in bytes.", "gauge", [], () => {
    const m = Deno.memoryUsage();
    return [[[], m.heapUsed]];
  });
  metrics.collect("process_uptime_seconds", "Seconds since the process started.", "gauge", [], () => [
    [[], Math.round(performance.now()) / 1000],
  ]);
  const lag = metrics.histogram(
    "cds_event_loop_lag_seconds",
    `How late a ${lagProbeMs} ms timer fired: time the event loop was busy with something else.`,
    [],
    [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  ).labels();
  let worst = 0;
  let previousWorst = 0;
  let windowStart = performance.now();
  metrics.collect(
    "cds_event_loop_lag_max_seconds",
    "The worst event-loop lag seen in the last 30 to 60 seconds.",
    "gauge",
    [],
    () => [[[], Math.max(worst, previousWorst)]],
  );
  let expected = performance.now() + lagProbeMs;
  const timer = setInterval(() => {
    const now = performance.now();
    const late = Math.max(0, now - expected) / 1000;
    expected = now + lagProbeMs;
    lag.observe(late);
    if (now - windowStart >= lagWindowMs) {
      previousWorst = worst;
      worst = 0;
      windowStart = now;
    }
    if (late > worst) worst = late;
  }, lagProbeMs);
  Deno.unrefTimer(timer);
  return () => clearInterval(timer);
};

/** The registry with the process's own figures, sampled for as long as the layer lives. */
export const MetricsLive: Layer.Layer<Metrics> = Layer.scoped(
  Metrics,
  Effect.gen(function* () {
    const metrics = makeMetricsRegistry();
    yield* Effect.acquireRelease(Effect.sync(() => sampleProcess(metrics)), (stop) => Effect.sync(stop));
    return metrics;
  }),
);
