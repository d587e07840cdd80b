/**
 * Worker entry of `embedded_prepare.ts`: opens an embedded database directory (creating it: initdb, when it is
 * empty) and, when asked, seeds the demo chain into it, then closes it. It runs in a Web Worker so the main
 * thread stays free to log progress and whatever memory this takes goes away with the worker.
 */
import { Effect } from "effect";
import type { Network } from "@schemas/network.ts";
import { seedDemoChainPglite } from "@src/demo_chain/seed.ts";
import { openPglite } from "./pglite_open.ts";

export interface PrepareRequest {
  readonly dataDir: string;
  /** The demo chain to seed when the database holds none yet; null = only create the database. */
  readonly network: Network | null;
}

export type PrepareMessage =
  | { readonly type: "progress"; readonly text: string }
  | { readonly type: "seeding" }
  | {
    readonly type: "done";
    readonly seeded: null | {
      readonly tipBlockNo: number;
      readonly rows: number;
      readonly generateMs: number;
      readonly indexMs: number;
    };
  }
  | { readonly type: "failed"; readonly message: string };

/** The worker's global scope (typed by hand: this module is also type-checked with the main thread's lib). */
const scope = globalThis as unknown as {
  postMessage: (message: PrepareMessage) => void;
  onmessage: (event: MessageEvent<PrepareRequest>) => void;
};
const post = (message: PrepareMessage) => scope.postMessage(message);

/** Creates the database if needed and seeds it when asked and empty; what it seeded, or null. */
const prepare = async ({ dataDir, network }: PrepareRequest) => {
  post({ type: "progress", text: "opening (a new database is created first)" });
  // creating the database (initdb) costs most of this worker's memory; a small buffer pool keeps seeding's
  // share low (PGlite's 128MB default added about 100 MB and was no faster)
  const db = await openPglite(dataDir, { sharedBuffers: "32MB" });
  try {
    const [found] = (await db.query<{ t: string | null }>(
      "select to_regclass('public.schema_version')::text as t",
    )).rows;
    if (network === null || found?.t != null) return null;
    post({ type: "seeding" });
    const seeded = await Effect.runPromise(seedDemoChainPglite(db, {
      network,
      scale: 1,
      onProgress: (text) => post({ type: "progress", text }),
    }));
    // what later opens read is on disk, not only in the write-ahead log
    await db.exec("checkpoint");
    return {
      tipBlockNo: seeded.tipBlockNo,
      rows: Object.values(seeded.counts).reduce((sum, n) => sum + n, 0),
      generateMs: seeded.generateMs,
      indexMs: seeded.indexMs,
    };
  } finally {
    await db.close();
  }
};

scope.onmessage = async (event) => {
  try {
    post({ type: "done", seeded: await prepare(event.data) });
  } catch (error) {
    post({ type: "failed", message: error instanceof Error ? error.message : String(error) });
  }
};
