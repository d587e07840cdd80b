/**
 * Creates db-sync 13.7.2's core layout on an empty database (embedded and test databases), from the generated
 * schemas/db/dbsync_schema.sql and dbsync_indexes.sql, and our extra indexes from schemas/db/extra_indexes.sql.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import { nonConcurrentStatement, readExtraIndexes } from "./extra_indexes.ts";

export type DbSyncSqlFile = "dbsync_schema.sql" | "dbsync_indexes.sql";

/** The text of a generated file under schemas/db/. */
export const readSchemaSql = (file: DbSyncSqlFile): Effect.Effect<string, SqlError> =>
  Effect.tryPromise({
    try: () => Deno.readTextFile(new URL(`../../schemas/db/${file}`, import.meta.url)),
    catch: (cause) =>
      new SqlError({
        cause,
        message: `cannot read schemas/db/${file}: ${cause instanceof Error ? cause.message : String(cause)}`,
      }),
  });

// Parameterless: PGlite runs it with exec, node-postgres with the simple query protocol, so the whole file is one
// call and (outside an explicit transaction) one implicit transaction: it applies completely or not at all.
const runFile = (sql: SqlClient, file: DbSyncSqlFile) =>
  Effect.flatMap(readSchemaSql(file), (text) => sql.unsafe(text)).pipe(
    Effect.asVoid,
    Effect.withSpan(`createSchema.${file}`),
  );

/** Domains, enums, tables with keys and unique constraints, the epoch views and the schema_version row. */
export const createDbSyncTables = (sql: SqlClient): Effect.Effect<void, SqlError> =>
  runFile(sql, "dbsync_schema.sql");

/** db-sync's stage-3/4 indexes and runtime unique constraints; after a bulk load, or right away. */
export const createDbSyncIndexes = (sql: SqlClient): Effect.Effect<void, SqlError> =>
  runFile(sql, "dbsync_indexes.sql");

export interface ExtraIndexOptions {
  /**
   * true (default): `CREATE INDEX CONCURRENTLY`, one statement per call, not inside a transaction.
   * false: plain `CREATE INDEX`, usable inside a transaction on a database nobody else writes to yet.
   */
  readonly concurrently?: boolean;
}

/** Our extra indexes, one statement at a time (each IF NOT EXISTS); returns their names. */
export const createExtraIndexes = (
  sql: SqlClient,
  options: ExtraIndexOptions = {},
): Effect.Effect<ReadonlyArray<string>, SqlError> =>
  Effect.gen(function* () {
    const indexes = yield* readExtraIndexes;
    for (const index of indexes) {
      yield* sql.unsafe(options.concurrently === false ? nonConcurrentStatement(index) : index.statement);
    }
    return indexes.map((i) => i.name);
  }).pipe(Effect.withSpan("createSchema.extra_indexes.sql"));
