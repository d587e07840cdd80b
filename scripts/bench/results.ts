/**
 * A benchmark's rows as machine-readable results, for `npm run bench` (scripts/bench.ts) to gather into one
 * table. Each bench still prints its own table; when BENCH_RESULTS names a file, `reportRows` also appends one
 * JSON line per row to it. A row is a rate of ours next to a reference measured in the same run (raw Deno.serve,
 * the same SQL run directly, a raw WebSocket echo, …), so the ratio means something on a noisy shared machine.
 */

export interface ResultRow {
  readonly workload: string;
  /** Our figure, in `unit` (a rate unless the unit says otherwise). */
  readonly ours: number;
  readonly unit: string;
  /** The same work without us, measured in the same run; ratio = ours / reference. */
  readonly reference?: number;
  readonly referenceName?: string;
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  /** Non-2xx answers, timeouts or protocol errors during the measurement. */
  readonly errors?: number;
}

/** The JSON line written per row. */
export interface ResultLine extends ResultRow {
  readonly bench: string;
  readonly ratio?: number;
}

/** Appends the rows to $BENCH_RESULTS as JSON lines; nothing when it is unset (a bench run on its own). */
export const reportRows = async (bench: string, rows: ReadonlyArray<ResultRow>): Promise<void> => {
  const file = Deno.env.get("BENCH_RESULTS");
  if (!file) return;
  const lines = rows.map((row) => {
    const ratio = row.reference ? row.ours / row.reference : undefined;
    return JSON.stringify({ bench, ...row, ratio } satisfies ResultLine) + "\n";
  });
  await Deno.writeTextFile(file, lines.join(""), { append: true });
};

/** wrk's latency notation ("830.00us", "4.20ms", "1.77s", "2.00m") in milliseconds; undefined if unreadable,
 * and for "0.00us", which wrk prints when no request finished within its timeout (no latency was recorded). */
export const latencyMs = (text: string): number | undefined => {
  const m = text.match(/^([\d.]+)(us|ms|s|m)$/);
  if (!m || Number(m[1]) === 0) return undefined;
  const scale = { us: 0.001, ms: 1, s: 1000, m: 60_000 }[m[2] as "us" | "ms" | "s" | "m"];
  return Number(m[1]) * scale;
};
