/**
 * Issue 23's performance targets, matched to the rows of `npm run bench` by bench and workload name, so the
 * benches report measurements only and the targets are read in one place. Each a bound on one row of one run.
 */
import type { ResultLine } from "./results.ts";

export interface Target {
  readonly minRatio?: number;
  readonly maxRatio?: number;
  readonly maxP50Ms?: number;
  readonly maxP99Ms?: number;
  readonly minOurs?: number;
  readonly maxOurs?: number;
}

const targets: ReadonlyArray<{ bench: string; workload: RegExp; target: Target }> = [
  { bench: "access", workload: /\/v1\/key.*memory/, target: { minRatio: 0.5 } },
  { bench: "access", workload: /\/v1\/key.*Redis/, target: { minRatio: 0.35 } },
  { bench: "access", workload: /explorer/, target: { minRatio: 0.5 } },
  { bench: "access", workload: /\/health/, target: { minRatio: 0.2 } },
  // stated for distinct keys on the 9.2M-output database; the repeated-key rows are held to it too
  { bench: "rest", workload: /./, target: { minRatio: 0.8, maxP99Ms: 50 } },
  { bench: "graphql", workload: /./, target: { maxP50Ms: 50 } },
  // fresh lookups against Blockfrost's backend on the same database; its /health checks no key, so no bound there
  { bench: "versus", workload: /^(?!.*health)/, target: { minRatio: 2, maxP99Ms: 50 } },
  { bench: "ogmios", workload: /queryNetwork\/tip/, target: { minRatio: 0.7 } },
  { bench: "ogmios", workload: /chain sync.*database/, target: { minOurs: 2000 } },
  // cost grows with the work, not the chain: p99 on the ~9.2M-output chain over p99 on the ~1.06M one. An index
  // probe's B-tree is at most one level deeper on a 9x larger table (fan-out in the hundreds), and p99 moves by
  // 20-30% between runs on the shared 2-core machine; a statement reading in proportion to the chain gives 3x+
  { bench: "scaling", workload: /: p99 at /, target: { maxRatio: 1.5 } },
  { bench: "soak", workload: /^soak/, target: { maxP99Ms: 100 } },
  { bench: "soak", workload: /RSS/, target: { maxOurs: 500 } },
];

export const targetOf = (row: ResultLine): Target | undefined =>
  targets.find((t) => t.bench === row.bench && t.workload.test(row.workload))?.target;

/** "≥ 0.5 ratio, p99 < 50 ms" */
export const describeTarget = (t: Target, unit: string): string =>
  [
    t.minRatio !== undefined ? `ratio ≥ ${t.minRatio}` : "",
    t.maxRatio !== undefined ? `ratio ≤ ${t.maxRatio}` : "",
    t.maxP50Ms !== undefined ? `p50 < ${t.maxP50Ms} ms` : "",
    t.maxP99Ms !== undefined ? `p99 < ${t.maxP99Ms} ms` : "",
    t.minOurs !== undefined ? `≥ ${t.minOurs.toLocaleString("en")} ${unit}` : "",
    t.maxOurs !== undefined ? `< ${t.maxOurs.toLocaleString("en")} ${unit}` : "",
  ].filter(Boolean).join(", ");

/** Whether the row meets every bound of its target (a bound on a figure the row lacks is not met). */
export const meets = (t: Target, row: ResultLine): boolean =>
  (t.minRatio === undefined || (row.ratio ?? -Infinity) >= t.minRatio) &&
  (t.maxRatio === undefined || (row.ratio ?? Infinity) <= t.maxRatio) &&
  (t.maxP50Ms === undefined || (row.p50Ms ?? Infinity) < t.maxP50Ms) &&
  (t.maxP99Ms === undefined || (row.p99Ms ?? Infinity) < t.maxP99Ms) &&
  (t.minOurs === undefined || row.ours >= t.minOurs) &&
  (t.maxOurs === undefined || row.ours < t.maxOurs);
