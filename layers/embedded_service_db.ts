/**
 * The embedded service database: one PGlite under `DATA_DIR/service`, which only one process may open. The
 * process that opens it (the running service, or the keys CLI when no service runs) holds `.lock` and serves the
 * database over a Unix socket (`.s.PGSQL.5432`, a real PostgreSQL protocol endpoint), and every client, itself
 * included, connects through that socket. The socket server keeps transactions of different connections apart,
 * which direct in-process calls would not.
 *
 * Unlike the chain databases (`pglite_session.ts`), this PGlite stays on the main thread: pglite-socket serves a
 * PGlite of its own thread, and the service database only runs short statements on small tables (a key by its
 * hash, usage counters, a change counter), so it cannot hold the thread the way a chain-sized query could.
 */
import * as Reactivity from "@effect/experimental/Reactivity";
import type { SqlClient } from "@effect/sql/SqlClient";
import { SqlError } from "@effect/sql/SqlError";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { Effect, type Scope } from "effect";
import { rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { makePgSqlClient } from "./sql_pg.ts";
import { openPglite } from "./sql_pglite.ts";
import { trackPglite } from "./embedded_memory.ts";
import { isPrepared, prepareEmbedded } from "./embedded_prepare.ts";
import { makePrivateDir, makePrivateTree } from "./private_files.ts";
import { keepExchangesTogether } from "./pglite_socket_exchanges.ts";

export const socketFile = ".s.PGSQL.5432";

/** node-postgres reaches a Unix socket through the directory holding it (`host` starting with `/`). */
export const socketUrl = (directory: string): string =>
  `postgres://postgres@localhost/postgres?host=${encodeURIComponent(resolve(directory))}`;

const fail = (message: string) => (cause: unknown) =>
  new SqlError({ cause, message: `${message}: ${cause instanceof Error ? cause.message : String(cause)}` });

/** Connects to the socket of a process already serving the directory, if there is one. */
export const connectToRunning = (
  directory: string,
): Effect.Effect<SqlClient, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    yield* Effect.tryPromise({ try: () => stat(join(directory, socketFile)), catch: fail("no socket") });
    return yield* makePgSqlClient({ url: socketUrl(directory), maxConnections: 2 });
  });

/**
 * Opens the directory: takes the lock (waiting while another opener, such as a CLI, briefly holds it), opens
 * PGlite, serves it on the socket, and connects to it. Everything is undone when the scope closes.
 */
export const openAndServe = (
  directory: string,
): Effect.Effect<SqlClient, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    yield* Effect.tryPromise({
      try: () => makePrivateDir(directory),
      catch: fail("cannot create"),
    });
    yield* Effect.acquireRelease(
      Effect.gen(function* () {
        const file = yield* Effect.tryPromise({
          try: () => Deno.open(join(directory, ".lock"), { create: true, write: true, mode: 0o600 }),
          catch: fail(`cannot lock ${directory}`),
        });
        if (
          !(yield* Effect.tryPromise({
            try: () => file.tryLock(true),
            catch: fail(`cannot lock ${directory}`),
          }))
        ) {
          // another opener (a keys CLI working on it directly) holds it for a moment: wait, and say so
          yield* Effect.logInfo(`waiting for ${join(directory, ".lock")}: another process has it open`);
          yield* Effect.tryPromise({ try: () => file.lock(true), catch: fail(`cannot lock ${directory}`) });
        }
        return file;
      }),
      (file) =>
        Effect.promise(async () => {
          await file.unlock().catch(() => {});
          file.close();
        }),
    );
    // a new database is created (initdb, seconds of synchronous wasm) in a worker, so the process stays responsive
    if (!(yield* Effect.promise(() => isPrepared(directory)))) {
      yield* prepareEmbedded(directory, null).pipe(Effect.mapError(fail(`cannot create ${directory}`)));
    }
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        // keys and usage are small: a small buffer pool (PGlite's default 128MB would all be resident)
        try: () => openPglite(directory, { sharedBuffers: "8MB" }),
        catch: fail(`cannot open ${directory}`),
      }),
      (db) => Effect.promise(() => db.close().catch(() => {})),
    );
    yield* Effect.acquireRelease(
      Effect.sync(() => trackPglite("service", db)),
      (untrack) => Effect.sync(untrack),
    );
    // a socket file left by a process that died: we hold the lock, so nobody serves it
    yield* Effect.promise(() => rm(join(directory, socketFile), { force: true }));
    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const server = new PGLiteSocketServer({ db, path: join(directory, socketFile), maxConnections: 8 });
          keepExchangesTogether(server);
          await server.start();
          // the socket lets anyone who reaches it in as superuser without a password: its owner only
          await Deno.chmod(join(directory, socketFile), 0o600);
          return server;
        },
        catch: fail(`cannot serve ${directory}`),
      }),
      (server) => Effect.promise(() => server.stop().catch(() => {})),
    );
    // PGlite creates its files 0666 whatever the umask: make the whole directory its owner's only
    yield* Effect.tryPromise({
      try: () => makePrivateTree(directory),
      catch: fail(`cannot protect ${directory}`),
    });
    // the socket is served by this very process: while it is busy (seeding a demo chain on first start) a
    // connection can wait a while to be accepted, which is no reason to give up
    return yield* makePgSqlClient({
      url: socketUrl(directory),
      maxConnections: 4,
      connectTimeoutMs: 120_000,
    });
  });

/** For tools: the running process's socket when there is one, else open the directory ourselves. */
export const connectOrOpen = (
  directory: string,
): Effect.Effect<{ readonly sql: SqlClient; readonly via: "socket" | "direct" }, SqlError, Scope.Scope> =>
  Effect.gen(function* () {
    const running = yield* Effect.either(connectToRunning(directory));
    if (running._tag === "Right") return { sql: running.right, via: "socket" as const };
    return { sql: yield* openAndServe(directory), via: "direct" as const };
  }).pipe(Effect.provide(Reactivity.layer));
