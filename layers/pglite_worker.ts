/**
 * The Web Worker that holds one embedded PGlite database (see `pglite_session.ts`): PGlite is wasm and runs on
 * the thread that calls it, so a slow statement here never holds up the thread that serves HTTP, and the main
 * thread can end a statement that runs over its time by terminating this worker. Messages are answered in order,
 * one at a time; each answer carries the session's `statement_timeout` whenever a statement may have changed it.
 */
/// <reference lib="deno.worker" />
import { PGlite } from "@electric-sql/pglite";
import type { WorkerMemory, WorkerReply, WorkerRequest } from "./pglite_protocol.ts";
import { openPglite } from "./pglite_open.ts";
import { wasmBytes } from "./embedded_memory.ts";
import { makePreparedStatements } from "./pglite_prepared.ts";

let db: PGlite | undefined;
let prepared: ReturnType<typeof makePreparedStatements> | undefined;
let readOnly = false;

/** Statements after which the session's time limit may differ: a SET of it, or the end of a transaction. */
const maySetTimeout = /statement_timeout|^\s*(commit|rollback|end|abort|reset|discard)\b/i;

/** The session's `statement_timeout` in ms (0: none), or undefined when it cannot be read (an aborted transaction). */
const readTimeout = async (open: PGlite): Promise<number | undefined> => {
  try {
    const { rows } = await open.query<{ ms: string }>(
      "select setting as ms from pg_settings where name = 'statement_timeout'",
    );
    return Number(rows[0]?.ms ?? 0);
  } catch {
    return undefined;
  }
};

const handle = async (m: WorkerRequest): Promise<WorkerReply> => {
  switch (m.op) {
    case "open": {
      db = await openPglite(m.dataDir, { sharedBuffers: m.sharedBuffers });
      prepared = makePreparedStatements(db);
      readOnly = m.readOnly;
      if (readOnly) await db.exec("set default_transaction_read_only = on");
      if (m.statementTimeoutMs) await db.exec(`set statement_timeout = ${Math.round(m.statementTimeoutMs)}`);
      return { id: m.id, ok: true, rows: [], timeoutMs: await readTimeout(db) };
    }
    case "query": {
      const open = db!;
      const result = m.params.length === 0 && m.rowMode === "object"
        ? await open.exec(m.sql).then((rs) => rs[rs.length - 1] ?? { rows: [] })
        : await prepared!.query<unknown>(m.sql, m.params, m.rowMode);
      const timeoutMs = maySetTimeout.test(m.sql) ? await readTimeout(open) : undefined;
      return { id: m.id, ok: true, rows: result.rows, timeoutMs };
    }
    case "seed": {
      // loaded only here: serving workers never need the generator
      const { seedDemoChainPglite } = await import("@src/demo_chain/seed.ts");
      const { Effect } = await import("effect");
      const open = db!;
      if (readOnly) await open.exec("set default_transaction_read_only = off");
      try {
        return { id: m.id, ok: true, rows: [await Effect.runPromise(seedDemoChainPglite(open, m))] };
      } finally {
        if (readOnly) await open.exec("set default_transaction_read_only = on");
      }
    }
    case "memory": {
      // this isolate's heap (Deno.memoryUsage's rss is the whole process's, so it is left out)
      const { heapUsed, heapTotal, external } = Deno.memoryUsage();
      const memory: WorkerMemory = { heapUsed, heapTotal, external, wasm: db ? wasmBytes(db) : 0 };
      return { id: m.id, ok: true, rows: [memory] };
    }
    case "close": {
      await db?.close();
      db = undefined;
      prepared = undefined;
      return { id: m.id, ok: true, rows: [] };
    }
  }
};

self.onmessage = async (event: MessageEvent<WorkerRequest>) => {
  const m = event.data;
  try {
    self.postMessage(await handle(m));
  } catch (e) {
    const error = e as { message?: unknown; code?: unknown; detail?: unknown; hint?: unknown };
    self.postMessage(
      {
        id: m.id,
        ok: false,
        error: {
          message: typeof error?.message === "string" ? error.message : String(e),
          code: typeof error?.code === "string" ? error.code : undefined,
          detail: typeof error?.detail === "string" ? error.detail : undefined,
          hint: typeof error?.hint === "string" ? error.hint : undefined,
        },
        timeoutMs: db && m.op === "query" && maySetTimeout.test(m.sql) ? await readTimeout(db) : undefined,
      } satisfies WorkerReply,
    );
  }
};
