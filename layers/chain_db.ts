/**
 * `ChainDatabases`: one read-only `SqlClient` per network over a cardano-db-sync database. Each network is either
 * a PostgreSQL db-sync database (`<NETWORK>_DATABASE_URL`) or, by default, an embedded PGlite database under
 * `DATA_DIR/<network>` holding the generated demo chain (seeded on first start, reused after). A PostgreSQL
 * database given as several URLs (replicas) is served through one client over all of them (chain_replicas.ts). At
 * start the layout is detected and logged; a layout the service cannot answer correctly is refused.
 */
import * as Reactivity from "@effect/experimental/Reactivity";
import type { SqlClient } from "@effect/sql/SqlClient";
import { SqlError } from "@effect/sql/SqlError";
import { Context, Effect, Layer, Redacted, Ref, Runtime, type Scope } from "effect";
import { join } from "node:path";
import type { Network } from "@schemas/network.ts";
import { networks } from "@schemas/network.ts";
import { type DbSyncInfo, type DbSyncUnsupported, describeDbSync, detectDbSync } from "@src/dbsync/detect.ts";
import { AppConfig, redactUrl } from "./config.ts";
import { Dependencies, scopedAttempt, waitFor } from "./dependencies.ts";
import { type ChainReplicas, makeChainReplicas } from "./chain_replicas.ts";
import { makePgSqlClient } from "./sql_pg.ts";
import { makePgliteWorkerSqlClient } from "./sql_pglite.ts";
import { trackPgliteWorker } from "./embedded_memory.ts";
import { isPrepared, prepareEmbedded } from "./embedded_prepare.ts";
import { makePrivateDir, makePrivateTree } from "./private_files.ts";
import { phase } from "./startup_phase.ts";

export interface ChainDatabase {
  readonly network: Network;
  readonly sql: SqlClient;
  readonly backend: "postgres" | "pglite";
  /** Where the data lives, safe to log (password masked). */
  readonly location: string;
  readonly dbSync: DbSyncInfo;
  /** True when the data is the generated demo chain, not a real network. */
  readonly demoChain: boolean;
  /** Set when the database is given as several URLs: their states and the tip they all answer for. */
  readonly replicas?: ChainReplicas;
}

export class ChainDatabases extends Context.Tag("ChainDatabases")<ChainDatabases, {
  readonly get: (network: Network) => ChainDatabase;
  readonly all: ReadonlyArray<ChainDatabase>;
}>() {}

export class ChainDatabaseError extends Error {
  override readonly name = "ChainDatabaseError";
}

/** `meta.version` of a generated chain starts with this; db-sync writes its own version there. */
export const demoChainMarker = "cardano-data-service demo chain";

const isDemoChain = (sql: SqlClient) =>
  Effect.map(
    sql<{ version: string }>`select version from meta order by id limit 1`,
    (rows) => rows[0]?.version.startsWith(demoChainMarker) ?? false,
  );

const describeFailure = (network: Network, location: string) => (e: SqlError | DbSyncUnsupported) =>
  new ChainDatabaseError(`${network} chain database (${location}): ${e.message}`);

const openPostgres = (network: Network, url: Redacted.Redacted<string>, prepared: boolean) =>
  makePgSqlClient({
    url: Redacted.value(url),
    readOnly: true,
    maxConnections: 16,
    applicationName: `cardano-data-service/${network}`,
    prepareMarked: prepared,
  });

const postgresChain = (network: Network, url: Redacted.Redacted<string>, prepared: boolean) =>
  waitFor(
    `${network} chain database`,
    scopedAttempt(Effect.gen(function* () {
      const sql = yield* openPostgres(network, url, prepared);
      const dbSync = yield* detectDbSync(sql);
      const demoChain = yield* isDemoChain(sql);
      return { sql, dbSync, demoChain };
    })),
    // an unreachable or overloaded server may come back; an unsupported layout will not
    { transient: (e) => e._tag === "SqlError" },
  ).pipe(
    Effect.map(({ sql, dbSync, demoChain }) =>
      ({
        network,
        sql,
        backend: "postgres",
        location: redactUrl(url),
        dbSync,
        demoChain,
      }) satisfies ChainDatabase
    ),
    Effect.mapError((e) => describeFailure(network, redactUrl(url))(e)),
  );

/**
 * A chain database given as several URLs: ready once one member serves a supported layout (each member is checked
 * as it connects); the others join in the background. After start-up the set posts its state on the board itself.
 */
const replicatedChain = (
  network: Network,
  urls: ReadonlyArray<Redacted.Redacted<string>>,
  maxLagBlocks: number,
  prepared: boolean,
) =>
  Effect.gen(function* () {
    const board = yield* Effect.serviceOption(Dependencies);
    const name = `${network} chain database`;
    const opened = yield* waitFor(
      name,
      scopedAttempt(Effect.gen(function* () {
        const replicas = yield* makeChainReplicas({
          network,
          urls,
          maxLagBlocks,
          open: (url) =>
            Effect.tap(openPostgres(network, url, prepared), (sql) =>
              Effect.mapError(detectDbSync(sql), (e) =>
                new SqlError({ cause: e, message: e.message }))),
          report: (unavailable) => {
            if (board._tag === "Some" && board.value.started()) {
              board.value.set(name, unavailable === undefined ? "ok" : "down", unavailable);
            }
          },
        });
        const dbSync = yield* detectDbSync(replicas.sql);
        const demoChain = yield* isDemoChain(replicas.sql);
        return { replicas, dbSync, demoChain };
      })),
      {
        transient: (e) =>
          e._tag === "SqlError",
      },
    ).pipe(Effect.mapError(describeFailure(network, `${urls.length} URLs`)));
    return {
      network,
      sql: opened.replicas.sql,
      backend: "postgres",
      location: urls.map(redactUrl).join(", "),
      dbSync: opened.dbSync,
      demoChain: opened.demoChain,
      replicas: opened.replicas,
    } satisfies ChainDatabase;
  });

/**
 * A served chain database's buffer pool: PGlite's 128MB default is resident from the start (about 110 MB more
 * per network); 32MB answered a scan-heavy query mix as fast within noise (scripts/measure_start.ts, README).
 * 16MB: in a soak beside one at 32MB (2026-11-28, the same requests and 13,896 against 13,840 chain-sync
 * blocks) each chain's wasm memory held 32-36 MB resident instead of 50-53, RSS 46 MB lower, CPU +2.5%; the
 * files stay in the OS page cache, which RSS does not count.
 */
const chainSharedBuffers = "16MB";

const embeddedChain = (network: Network, dataDir: string) =>
  Effect.gen(function* () {
    const location = join(dataDir, network);
    const fs = (what: string, f: () => Promise<void>) =>
      Effect.tryPromise({
        try: f,
        catch: (cause) =>
          new ChainDatabaseError(`${network} embedded database (${location}): ${what}: ${cause}`),
      });
    yield* fs("cannot create the directory", () => makePrivateDir(location));
    // creating and seeding happen in a worker, whose memory goes when it ends; serving opens a fresh instance
    // the worker's messages arrive outside any fiber: logged through this fiber's runtime (its logger)
    const runtime = yield* Effect.runtime<never>();
    const prepared = yield* Effect.promise(() => isPrepared(location));
    const seeded = prepared
      ? null
      : yield* phase(`${network} chain database: prepare (created and seeded on first start)`, (
        progress,
      ) =>
        prepareEmbedded(
          location,
          network,
          (text) => Effect.runSync(Ref.set(progress, text)),
          () =>
            Runtime.runFork(runtime)(
              Effect.logInfo(`seeding the ${network} demo chain into ${location} (first start)`).pipe(
                Effect.annotateLogs({ network }),
              ),
            ),
        ).pipe(
          Effect.mapError((e) =>
            new ChainDatabaseError(`${network} demo chain preparation failed: ${e.message}`)
          ),
        ), { network });
    if (seeded) {
      yield* Effect.logInfo(`seeded the ${network} demo chain`).pipe(
        Effect.annotateLogs({ network, ...seeded }),
      );
    }
    return yield* phase(`${network} chain database: open for serving`, () =>
      Effect.gen(function* () {
        // served from a worker of its own: its statements never hold up the thread serving HTTP, and one over
        // its time is cancelled (the database reopened in a fresh worker)
        const { sql, session } = yield* makePgliteWorkerSqlClient({
          dataDir: location,
          readOnly: true,
          sharedBuffers: chainSharedBuffers,
          onRestart: (reason) =>
            Runtime.runFork(runtime)(Effect.logWarning(`${network}: embedded database restarted: ${reason}`)),
        });
        // its worker's heap and wasm memory in the memory log (embedded_memory.ts)
        yield* Effect.acquireRelease(
          Effect.sync(() => trackPgliteWorker(network, () => session.memory())),
          (untrack) => Effect.sync(untrack),
        );
        const dbSync = yield* detectDbSync(sql);
        const demoChain = yield* isDemoChain(sql);
        // PGlite creates its files 0666 whatever the umask: make the whole directory its owner's only
        yield* fs("cannot make its files private", () => makePrivateTree(location));
        return { network, sql, backend: "pglite", location, dbSync, demoChain } satisfies ChainDatabase;
      }), { network });
  }).pipe(
    Effect.mapError((e) =>
      e instanceof ChainDatabaseError ? e : describeFailure(network, join(dataDir, network))(e)
    ),
  );

/** Opens every network's chain database (in parallel), detects and logs what each one is. */
export const ChainDatabasesLive: Layer.Layer<ChainDatabases, ChainDatabaseError, AppConfig> = Layer.scoped(
  ChainDatabases,
  Effect.gen(function* () {
    const config = yield* AppConfig;
    const opened = yield* Effect.forEach(networks, (network): Effect.Effect<
      ChainDatabase,
      ChainDatabaseError,
      Scope.Scope | Reactivity.Reactivity
    > => {
      const urls = config.networks[network].databaseUrls;
      // an embedded database opens or fails for good: posted on the board, not retried
      return urls.length > 1
        ? phase(
          `${network} chain database: connect`,
          () => replicatedChain(network, urls, config.replicaMaxLagBlocks, config.chainPreparedStatements),
          { network },
        )
        : urls.length === 1
        ? phase(
          `${network} chain database: connect`,
          () => postgresChain(network, urls[0]!, config.chainPreparedStatements),
          { network },
        )
        : waitFor(`${network} chain database`, embeddedChain(network, config.dataDir), {
          transient: () => false,
        });
    }, { concurrency: "unbounded" });
    for (const chain of opened) {
      const missing = chain.dbSync.missingDbSyncIndexes.length + chain.dbSync.missingExtraIndexes.length > 0;
      const line = `${chain.network}: ${chain.backend} ${chain.location}; ${describeDbSync(chain.dbSync)}` +
        (chain.demoChain ? "; data is a GENERATED DEMO CHAIN, not the real network" : "");
      yield* missing ? Effect.logWarning(line) : Effect.logInfo(line);
    }
    const byNetwork = new Map(opened.map((c) => [c.network, c] as const));
    return { get: (network: Network) => byNetwork.get(network)!, all: opened };
  }),
).pipe(Layer.provide(Reactivity.layer));
