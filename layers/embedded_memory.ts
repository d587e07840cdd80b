/**
 * Where the embedded default's memory goes: each open PGlite instance's wasm memory (its Postgres heap and
 * shared buffers; it grows and never shrinks) next to the process's RSS and V8 heap. The openers register
 * their instances here; start-up logs the figures and `scripts/measure_start.ts` reads them.
 */
import type { PGlite } from "@electric-sql/pglite";

const open = new Map<string, PGlite>();

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

/** Memory figures in MB: RSS, V8 heap, and the wasm memory of each open PGlite. */
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
