/**
 * The one Markdown table of `npm run bench`: every row the benches reported, with the issue's target where it
 * states one, and a line for each bench that was skipped or failed.
 */
import type { ResultLine } from "./results.ts";
import { describeTarget, meets, targetOf } from "./targets.ts";

/** A bench that gave no rows, and why ("skipped: needs BENCH_DATABASE_URL", "failed: exit 1"). */
export interface Missing {
  readonly bench: string;
  readonly reason: string;
}

const number = (n: number) =>
  n >= 100 ? Math.round(n).toLocaleString("en") : n >= 10 ? n.toFixed(1) : n.toPrecision(3);

const duration = (ms: number | undefined) =>
  ms === undefined ? "" : ms >= 1000 ? `${(ms / 1000).toPrecision(3)} s` : `${ms.toPrecision(3)} ms`;

const cell = (text: string) => text.replaceAll("|", "\\|");

export const renderTable = (rows: ReadonlyArray<ResultLine>, missing: ReadonlyArray<Missing>): string => {
  const out = [
    "| benchmark | workload | ours | reference | ratio | p50 | p99 | errors | target | met |",
    "|---|---|--:|--:|--:|--:|--:|--:|---|---|",
  ];
  for (const row of rows) {
    const target = targetOf(row);
    const reference = row.reference === undefined
      ? ""
      : `${number(row.reference)} ${row.unit}${row.referenceName ? ` (${row.referenceName})` : ""}`;
    out.push(
      "| " + [
        row.bench,
        cell(row.workload),
        `${number(row.ours)} ${row.unit}`,
        cell(reference),
        row.ratio === undefined ? "" : row.ratio.toFixed(2),
        duration(row.p50Ms),
        duration(row.p99Ms),
        row.errors === undefined ? "" : String(row.errors),
        target ? describeTarget(target, row.unit) : "",
        target ? (meets(target, row) ? "yes" : "**no**") : "",
      ].join(" | ") + " |",
    );
  }
  for (const m of missing) out.push(`| ${m.bench} | ${cell(m.reason)} | | | | | | | | |`);
  return out.join("\n");
};
