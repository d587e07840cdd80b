/**
 * One embedded PGlite database held by a Web Worker of its own (`pglite_worker.ts`), seen from the main thread.
 * A statement that runs past the session's `statement_timeout` is cancelled the only way wasm can be: the worker
 * is terminated, the statement fails with PostgreSQL's own timeout error (SQLSTATE 57014), and the database is
 * reopened from its files in a fresh worker. Nothing committed is lost (every commit is in the WAL before it is
 * answered) and a transaction that was open simply never happened (PostgreSQL's crash recovery rolls it back);
 * `generation` changes so the caller can tell that an open transaction's session is gone.
 */
import type { Network } from "@schemas/network.ts";
import type { SeedResult } from "@src/demo_chain/seed.ts";
import type { WorkerError, WorkerMemory, WorkerReply, WorkerRequest } from "./pglite_protocol.ts";

/** A PostgreSQL error from the embedded database, with the fields `pg`'s errors have. */
export class PgliteStatementError extends Error {
  override readonly name = "PgliteStatementError";
  readonly code: string | undefined;
  readonly detail: string | undefined;
  readonly hint: string | undefined;
  constructor(e: WorkerError) {
    super(e.message);
    this.code = e.code;
    this.detail = e.detail;
    this.hint = e.hint;
  }
}

const timedOut = () =>
  new PgliteStatementError({
    message: "canceling statement due to statement timeout",
    code: "57014",
    detail: undefined,
    hint: undefined,
  });

const sessionLost = (why: string) =>
  new PgliteStatementError({
    message: `the embedded database was restarted (${why}); try again`,
    code: "57P01",
    detail: undefined,
    hint: undefined,
  });

export interface PgliteSessionOptions {
  /** Where the database lives. Required: a restart reopens it from its files (an in-memory one would be lost). */
  readonly dataDir: string;
  readonly readOnly?: boolean;
  /** The session's default `statement_timeout` (SET LOCAL still overrides it per transaction). */
  readonly statementTimeoutMs?: number;
  /** PostgreSQL's `shared_buffers` for the instance (e.g. "32MB"); PGlite's default (128MB) otherwise. */
  readonly sharedBuffers?: string;
  /** Told each time the worker is replaced, with the reason. */
  readonly onRestart?: (reason: string) => void;
}

interface Pending {
  readonly resolve: (rows: ReadonlyArray<unknown>) => void;
  readonly reject: (e: Error) => void;
  timer?: ReturnType<typeof setTimeout>;
}

export class PgliteSession {
  /** Changes whenever the worker (and so the database session) is replaced. */
  generation = 0;
  /** Times the worker was replaced under a live session (a statement over its time, a failed worker). */
  restarts = 0;
  /** The session's `statement_timeout` as last reported by the worker; 0 = none. */
  private timeoutMs = 0;
  private worker: Worker | undefined;
  private ready: Promise<void> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private closed = false;

  constructor(private readonly o: PgliteSessionOptions) {}

  /** Starts the worker and opens the database (the first statement would do it too). */
  open(): Promise<void> {
    return this.whenReady();
  }

  /** Runs one statement (several, `;`-separated, when there are no params), under the session's time limit. */
  async query(
    sql: string,
    params: ReadonlyArray<unknown>,
    rowMode: "object" | "array",
  ): Promise<ReadonlyArray<unknown>> {
    await this.whenReady();
    return this.send({ id: ++this.nextId, op: "query", sql, params, rowMode }, this.timeoutMs);
  }

  /** Seeds the demo chain into the empty database, in the worker (seconds of work off the serving thread; even a
   * read-only session writes it). */
  async seed(network: Network, scale: number): Promise<SeedResult> {
    await this.whenReady();
    const [result] = await this.send({ id: ++this.nextId, op: "seed", network, scale }, 0);
    return result as SeedResult;
  }

  /**
   * The worker's memory (its V8 heap, its PGlite's wasm memory), or undefined when it has none open or does not
   * answer within `withinMs` (a long statement holds its thread). Never starts a worker.
   */
  async memory(withinMs = 1_000): Promise<WorkerMemory | undefined> {
    if (!this.worker || !this.ready) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const reply = this.send({ id: ++this.nextId, op: "memory" }, 0).then(
        (rows) => rows[0] as WorkerMemory,
        () => undefined,
      );
      return await Promise.race([
        reply,
        new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), withinMs)),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Replaces the worker with a fresh one (seeding grows the wasm heap, which never shrinks). */
  async recycle(): Promise<void> {
    this.restart(sessionLost("recycled"));
    await this.whenReady();
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await this.ready;
      // a statement still running gets a few seconds to finish before the worker is ended under it
      await Promise.race([
        this.send({ id: ++this.nextId, op: "close" }, 0),
        new Promise((resolve) => timer = setTimeout(resolve, 5_000)),
      ]);
    } catch {
      // closing is best effort: the files are consistent after every commit anyway
    } finally {
      clearTimeout(timer);
      this.replace(sessionLost("closed"));
    }
  }

  private async whenReady(): Promise<void> {
    if (this.closed) throw sessionLost("closed");
    const ready = this.ready ??= this.spawn();
    try {
      await ready;
    } catch (e) {
      // a failed open is tried again by the next statement
      if (this.ready === ready) this.ready = undefined;
      throw e;
    }
  }

  private spawn(): Promise<void> {
    const worker = new Worker(new URL("./pglite_worker.ts", import.meta.url), { type: "module" });
    worker.onmessage = (event: MessageEvent<WorkerReply>) => {
      if (worker === this.worker) this.answer(event.data);
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      if (worker !== this.worker) return;
      this.o.onRestart?.(`the worker failed: ${event.message}`);
      this.restart(sessionLost(`its worker failed: ${event.message}`));
    };
    this.worker = worker;
    return this.send({
      id: ++this.nextId,
      op: "open",
      dataDir: this.o.dataDir,
      readOnly: this.o.readOnly ?? false,
      statementTimeoutMs: this.o.statementTimeoutMs,
      sharedBuffers: this.o.sharedBuffers,
    }, 0).then(() => {});
  }

  private send(request: WorkerRequest, limitMs: number): Promise<ReadonlyArray<unknown>> {
    const worker = this.worker!;
    return new Promise((resolve, reject) => {
      const pending: Pending = { resolve, reject };
      if (limitMs > 0) {
        pending.timer = setTimeout(() => {
          if (worker !== this.worker) return;
          this.pending.delete(request.id);
          reject(timedOut());
          this.o.onRestart?.(`a statement ran over its ${limitMs} ms`);
          this.restart(sessionLost("a statement ran over its time"));
        }, limitMs);
      }
      this.pending.set(request.id, pending);
      worker.postMessage(request);
    });
  }

  private answer(reply: WorkerReply): void {
    if (reply.timeoutMs !== undefined) this.timeoutMs = reply.timeoutMs;
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    clearTimeout(pending.timer);
    if (reply.ok) pending.resolve(reply.rows);
    else pending.reject(new PgliteStatementError(reply.error));
  }

  /** Ends the current worker, failing whatever it still had. */
  private replace(reason: Error): void {
    this.worker?.terminate();
    this.worker = undefined;
    this.ready = undefined;
    this.generation++;
    this.timeoutMs = 0;
    for (const pending of this.pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(reason);
    }
    this.pending.clear();
  }

  /** Replaces the worker with a fresh one over the same files (opened now, so the next statement waits less). */
  private restart(reason: Error): void {
    this.restarts++;
    this.replace(reason);
    if (this.closed) return;
    const ready = this.ready = this.spawn();
    ready.catch(() => {
      if (this.ready === ready) this.ready = undefined;
    });
  }
}
