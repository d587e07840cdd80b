/**
 * `ChainDatabases`: one read-only `SqlClient` per network over a cardano-db-sync database. Each network is either
 * a PostgreSQL db-sync database (`<NETWORK>_DATABASE_URL`) or, by default, an embedded PGlite database under
 * `DATA_DIR/<network>` holding the generated demo chain (seeded on first start, reused after). At start the
 * layout is detected and logged; a layout the service cannot answer correctly is refused.
 */
import * as Reactivity from "@effect/experimental/Reactivity";
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Context, Effect, Layer, Option, Redacted, type Scope } from "effect";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Network } from "@schemas/network.ts";
import { networks } from "@schemas/network.ts";
import { type DbSyncInfo, type DbSyncUnsupported, describeDbSync, detectDbSync } from "@src/dbsync/detect.ts";
import { seedDemoChainPglite } from "@src/demo_chain/seed.ts";
import { AppConfig, redactUrl } from "./config.ts";
import { scopedAttempt, waitFor } from "./dependencies.ts";
import { makePgSqlClient } from "./sql_pg.ts";
import { makePgliteSqlClientFrom, openPglite } from "./sql_pglite.ts";
import type { PGlite } from "@electric-sql/pglite";

export interface ChainDatabase {
  readonly network: Network;
  readonly sql: SqlClient;
  readonly backend: "postgres" | "pglite";
  /** Where the data lives, safe to log (password masked). */
  readonly location: string;
  readonly dbSync: DbSyncInfo;
  /** True when the data is the generated demo chain, not a real network. */
  readonly demoChain: boolean;
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

const postgresChain = (network: Network, url: Redacted.Redacted<string>) =>
  waitFor(
    `${network} chain database`,
    scopedAttempt(Effect.gen(function* () {
      const sql = yield* makePgSqlClient({
        url: Redacted.value(url),
        readOnly: true,
        maxConnections: 16,
        applicationName: `cardano-data-service/${network}`,
      });
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

const embeddedChain = (network: Network, dataDir: string) =>
  Effect.gen(function* () {
    const location = join(dataDir, network);
    yield* Effect.promise(() => mkdir(location, { recursive: true }));
    const open = Effect.tryPromise({
      try: () => openPglite(location),
      catch: (cause) =>
        new ChainDatabaseError(`${network} embedded database (${location}): ${String(cause)}`),
    });
    const close = (db: PGlite) => Effect.promise(() => db.close().catch(() => {}));
    yield* Effect.acquireUseRelease(
      open,
      (db) =>
        Effect.gen(function* () {
          const [found] = (yield* Effect.promise(() =>
            db.query<{ t: string | null }>("select to_regclass('public.schema_version')::text as t")
          )).rows;
          if (found?.t != null) {
            return false;
          }
          yield* Effect.logInfo(`seeding the ${network} demo chain into ${location} (first start)`);
          const started = Date.now();
          const seeded = yield* seedDemoChainPglite(db, { network, scale: 1 }).pipe(
            Effect.mapError((e) =>
              new ChainDatabaseError(`${network} demo chain seeding failed: ${e.message}`)
            ),
          );
          yield* Effect.logInfo(`seeded the ${network} demo chain in ${Date.now() - started} ms`).pipe(
            Effect.annotateLogs({
              network,
              tipBlockNo: seeded.tipBlockNo,
              rows: Object.values(seeded.counts).reduce((sum, n) =>
                sum + n, 0),
            }),
          );
          return true;
        }),
      // seeding grows the wasm heap, which never shrinks: serve from a fresh instance instead
      close,
    );
    const db = yield* Effect.acquireRelease(open, close);
    const sql = yield* makePgliteSqlClientFrom(db, { readOnly: true });
    const dbSync = yield* detectDbSync(sql);
    const demoChain = yield* isDemoChain(sql);
    return { network, sql, backend: "pglite", location, dbSync, demoChain } satisfies ChainDatabase;
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
      const url = config.networks[network].databaseUrl;
      // an embedded database opens or fails for good: posted on the board, not retried
      return Option.isSome(url)
        ? postgresChain(network, url.value)
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
