/**
 * The SQL files that define a db-sync database for us: db-sync's own schema and indexes (generated from the
 * reference catalog) and the extra indexes our queries need (also the operator script for real databases).
 */
export type SchemaFile = "dbsync_schema.sql" | "dbsync_indexes.sql" | "extra_indexes.sql";

export const readSchemaFile = (file: SchemaFile): Promise<string> =>
  Deno.readTextFile(new URL(`../../schemas/db/${file}`, import.meta.url));

/** Names of the indexes (and index-backed constraints) a schema file creates. */
export const indexNamesIn = (sql: string): Array<string> =>
  [...sql.matchAll(
    /(?:CREATE (?:UNIQUE )?INDEX (?:CONCURRENTLY )?(?:IF NOT EXISTS )?|ADD CONSTRAINT )(\w+)/gi,
  )]
    .map((m) => m[1]!);

/** The extra indexes as separate statements (CONCURRENTLY cannot share a transaction or a multi-statement call). */
export const extraIndexStatements = async (): Promise<Array<string>> =>
  (await readSchemaFile("extra_indexes.sql"))
    .split("\n")
    .filter((line) => !line.trim().startsWith("--"))
    .join("\n")
    .split(";")
    .map((s) => s.trim())
    .filter((s) => s !== "");
