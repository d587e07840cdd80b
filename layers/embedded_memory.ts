/**
 * Where the embedded default's memory goes: each open PGlite instance's wasm memory (its Postgres heap and
 * shared buffers; it grows and never shrinks) next to the process's RSS and V8 heap, and for each database
 * held by a worker (`pglite_session.ts`) that worker's own V8 heap and its PGlite's wasm memory. The openers
 * register their instances here; start-up and the memory log line (`MEMORY_LOG_SECONDS`) log the figures, and
 * `scripts/measure_start.ts` and `scripts/soak.ts` read them.
 */
import type { PGlite } from "@electric-sql/pglite";
import type { WorkerMemory } from "./pglite_protocol.ts";

const open = new Map<string, PGlite>();
const workers = new Map<string, () => Promise<WorkerMemory | undefined>>();

/** Registers a worker's memory probe under `label` (e.g. "mainnet") until the returned function is called. */
export const trackPgliteWorker = (
  label: string,
  probe: () => Promise<WorkerMemory | undefined>,
): () => void => {
  workers.set(label, probe);
  return () => {
    if (workers.get(label) === probe) workers.delete(label);
  };
};

/** Registers `db` under `label` (e.g. "mainnet") until the returned function is called. */
export const trackPglite = (label: string, db: PGlite): () => void => {
  open.set(label, db);
  return () => {
    if (open.get(label) === db) open.delete(label);
  };
};

const mb = (bytes: number) => Math.round(bytes / 1048576);

/** The wasm memory of an instance in bytes (what it has grown to; untouched pages are not resident). */
export const wasmBytes = (db: PGlite): number =>
  ((db as unknown as { mod?: { wasmMemory?: WebAssembly.Memory; HEAP8?: Int8Array } }).mod?.wasmMemory
    ?.buffer ??
    (db as unknown as { mod?: { HEAP8?: Int8Array } }).mod?.HEAP8?.buffer)?.byteLength ?? 0;

/** Memory figures in MB: RSS, the main thread's V8 heap, and the wasm memory of each PGlite in this thread. */
export const memoryReport = (): Record<string, number> => {
  const usage = Deno.memoryUsage();
  const wasm = Object.fromEntries([...open].map(([label, db]) => [`wasmMb_${label}`, mb(wasmBytes(db))]));
  return {
    rssMb: mb(usage.rss),
    heapUsedMb: mb(usage.heapUsed),
    heapTotalMb: mb(usage.heapTotal),
    externalMb: mb(usage.external),
    ...wasm,
  };
};

/**
 * `memoryReport` and, for each database in a worker, `workerHeapMb_<label>` (its isolate's used V8 heap),
 * `workerHeapTotalMb_<label>` and `wasmMb_<label>`; a worker that does not answer within a second (a long
 * statement holds its thread) is left out of this report.
 */
export const memoryReportWithWorkers = async (): Promise<Record<string, number>> => {
  const answers = await Promise.all(
    [...workers].map(async ([label, probe]) => [label, await probe().catch(() => undefined)] as const),
  );
  const figures: Record<string, number> = {};
  for (const [label, m] of answers) {
    if (!m) continue;
    figures[`workerHeapMb_${label}`] = mb(m.heapUsed);
    figures[`workerHeapTotalMb_${label}`] = mb(m.heapTotal);
    figures[`wasmMb_${label}`] = mb(m.wasm);
  }
  return { ...memoryReport(), ...figures };
};
