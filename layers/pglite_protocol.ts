import type { Network } from "@schemas/network.ts";

/** The messages between the main thread (`pglite_session.ts`) and a PGlite worker (`pglite_worker.ts`). */

export type WorkerRequest =
  | {
    readonly id: number;
    readonly op: "open";
    readonly dataDir: string | undefined;
    readonly readOnly: boolean;
    /** The session's default `statement_timeout`; undefined or 0 = none. */
    readonly statementTimeoutMs: number | undefined;
    /** PostgreSQL's `shared_buffers` (e.g. "32MB"); undefined = PGlite's default. */
    readonly sharedBuffers?: string;
  }
  | {
    readonly id: number;
    readonly op: "query";
    readonly sql: string;
    readonly params: ReadonlyArray<unknown>;
    readonly rowMode: "object" | "array";
  }
  | {
    readonly id: number;
    /** Seeds the generated demo chain into the (empty) database; answers with the `SeedResult`. */
    readonly op: "seed";
    readonly network: Network;
    readonly scale: number;
  }
  | { readonly id: number; readonly op: "close" }
  /** The worker's own memory (answers one `WorkerMemory` row): what the service's memory log shows per database. */
  | { readonly id: number; readonly op: "memory" };

/** A worker's memory in bytes: its V8 isolate's heap and the wasm memory of its PGlite (0 before it opens). */
export interface WorkerMemory {
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly wasm: number;
}

/** A PostgreSQL error as it crosses the thread boundary (the fields callers read). */
export interface WorkerError {
  readonly message: string;
  readonly code: string | undefined;
  readonly detail: string | undefined;
  readonly hint: string | undefined;
}

export type WorkerReply =
  | {
    readonly id: number;
    readonly ok: true;
    readonly rows: ReadonlyArray<unknown>;
    /** The session's `statement_timeout` after the statement, when it may have changed. */
    readonly timeoutMs?: number | undefined;
  }
  | {
    readonly id: number;
    readonly ok: false;
    readonly error: WorkerError;
    readonly timeoutMs?: number | undefined;
  };
