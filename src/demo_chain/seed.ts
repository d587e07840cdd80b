/**
 * Seeding a db-sync database with the demo chain: on an empty database create the db-sync schema, load the chain
 * with COPY, then build db-sync's indexes and ours, all in one transaction (a failure leaves the database as it
 * was). A database that already holds a chain is refused.
 */
import type { PGlite } from "@electric-sql/pglite";
import { Data, Effect } from "effect";
import pg from "pg";
import type { Network } from "@schemas/network.ts";
import { CopySink, type CopyTarget, pgCopyTarget, pgliteCopyTarget } from "./copy_sink.ts";
import { ChainGenerator, defineTables } from "./generate.ts";
import { demoNetworks } from "./network_params.ts";
import { type DbSyncSqlFile, readSchemaSql } from "@src/dbsync/create_schema.ts";
import { nonConcurrentStatement, readExtraIndexes } from "@src/dbsync/extra_indexes.ts";

export interface SeedOptions {
  readonly network: Network;
  readonly scale: number;
  /** Told how far seeding is ("1,200 blocks, 30,000 rows", "building indexes", ...), for start-up progress. */
  readonly onProgress?: (progress: string) => void;
}

export interface SeedResult {
  readonly counts: Readonly<Record<string, number>>;
  readonly generateMs: number;
  readonly indexMs: number;
  readonly tipBlockNo: number;
  readonly tipEpoch: number;
}

export class SeedError extends Data.TaggedError("SeedError")<{ readonly message: string }> {}

/** What seeding needs from a database connection: run SQL, read a value, and bulk-copy rows. */
interface SeedConnection {
  readonly exec: (sql: string) => Promise<void>;
  readonly queryValue: (sql: string) => Promise<unknown>;
  readonly copy: CopyTarget;
}

const schemaSql = (file: DbSyncSqlFile) => Effect.runPromise(readSchemaSql(file));

/** Our extra indexes, without CONCURRENTLY so they can be built inside the seeding transaction. */
const extraIndexesInTransaction = async (): Promise<ReadonlyArray<string>> =>
  (await Effect.runPromise(readExtraIndexes)).map((index) => nonConcurrentStatement(index));

/** db-sync's index file, one statement per line, as separate statements (so progress can be told between them). */
const statementsOf = (text: string): ReadonlyArray<string> =>
  text.split("\n").filter((line) => !/^\s*(--|$)/.test(line)).join("\n").split(/;\s*\n/)
    .map((s) => s.trim().replace(/;$/, "")).filter((s) => s !== "");

/** A turn of the event loop, so timers (start-up progress lines) run between long synchronous steps. */
const yieldToTimers = (): Promise<void> => new Promise<void>((resolve) => setTimeout(resolve, 0));

const seed = async (db: SeedConnection, options: SeedOptions): Promise<SeedResult> => {
  const hasSchema = (await db.queryValue("select to_regclass('public.block') is not null")) === true;
  if (hasSchema && (await db.queryValue("select exists (select 1 from block)")) === true) {
    throw new Error("the database already holds a chain; seed only an empty database");
  }
  await db.exec("begin");
  try {
    if (!hasSchema) await db.exec(await schemaSql("dbsync_schema.sql"));
    const sink = new CopySink(db.copy);
    defineTables(sink);
    const started = performance.now();
    const report = options.onProgress ?? (() => {});
    // the generator calls onBlock every 16 blocks
    let blocks = 0;
    const generator = new ChainGenerator(sink, demoNetworks[options.network], {
      scale: options.scale,
      onBlock: () => {
        blocks += 16;
        if (blocks % 128 === 0) {
          const rows = [...sink.counts.values()].reduce((sum, n) => sum + n, 0);
          report(`generating: ${blocks} blocks, ${rows} rows copied`);
          return sink.flushFull().then(yieldToTimers);
        }
        return sink.flushFull();
      },
    });
    const chain = await generator.run();
    await sink.flushAll();
    const generateMs = Math.round(performance.now() - started);
    const indexStarted = performance.now();
    const indexes = [
      ...(hasSchema ? [] : statementsOf(await schemaSql("dbsync_indexes.sql"))),
      ...await extraIndexesInTransaction(),
    ];
    for (const [i, statement] of indexes.entries()) {
      report(`building indexes: ${i} of ${indexes.length} (${blocks} blocks generated)`);
      await db.exec(statement);
      await yieldToTimers();
    }
    await db.exec("commit");
    report("analyzing");
    await db.exec("analyze");
    return {
      counts: Object.fromEntries(sink.counts),
      generateMs,
      indexMs: Math.round(performance.now() - indexStarted),
      tipBlockNo: chain.tipBlockNo,
      tipEpoch: chain.tipEpoch,
    };
  } catch (error) {
    await db.exec("rollback").catch(() => {});
    throw error;
  }
};

const toSeedError = (cause: unknown) =>
  new SeedError({ message: cause instanceof Error ? cause.message : String(cause) });

/** Seeds an open PGlite database (the embedded default). */
export const seedDemoChainPglite = (db: PGlite, options: SeedOptions): Effect.Effect<SeedResult, SeedError> =>
  Effect.tryPromise({
    try: () =>
      seed({
        exec: async (sql) => {
          await db.exec(sql);
        },
        queryValue: async (sql) =>
          Object.values((await db.query<Record<string, unknown>>(sql)).rows[0] ?? {})[0],
        copy: pgliteCopyTarget(db),
      }, options),
    catch: toSeedError,
  });

/** Seeds a PostgreSQL database over one dedicated connection (COPY needs the raw protocol). */
export const seedDemoChainPostgres = (
  url: string,
  options: SeedOptions,
): Effect.Effect<SeedResult, SeedError> =>
  Effect.acquireUseRelease(
    Effect.tryPromise({
      try: async () => {
        const client = new pg.Client({
          connectionString: url,
          application_name: "cardano-data-service/seed",
        });
        await client.connect();
        await client.query("set maintenance_work_mem = '512MB'");
        return client;
      },
      catch: toSeedError,
    }),
    (client) =>
      Effect.tryPromise({
        try: () =>
          seed({
            exec: async (sql) => {
              await client.query(sql);
            },
            queryValue: async (sql) => Object.values((await client.query(sql)).rows[0] ?? {})[0],
            copy: pgCopyTarget(client),
          }, options),
        catch: toSeedError,
      }),
    (client) => Effect.promise(() => client.end().catch(() => {})),
  );
