/**
 * Our extra indexes (schemas/db/extra_indexes.sql, also the operator script) as data: detection reports which are
 * missing, the embedded setup creates them one statement at a time.
 */
import { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";

export interface ExtraIndex {
  readonly name: string;
  readonly table: string;
  /** `btree` or `hash`. */
  readonly method: string;
  readonly columns: ReadonlyArray<string>;
  /** Columns carried in the index after its keys (`INCLUDE (...)`), so a lookup reads no table row. */
  readonly included: ReadonlyArray<string>;
  /** The whole statement, without the trailing semicolon (`CREATE INDEX CONCURRENTLY IF NOT EXISTS ...`). */
  readonly statement: string;
  /** The `--` comment above it: which query needs it. */
  readonly purpose: string;
}

export const extraIndexesFile = "schemas/db/extra_indexes.sql";

const shape =
  /^CREATE\s+INDEX\s+CONCURRENTLY\s+IF\s+NOT\s+EXISTS\s+(\w+)\s+ON\s+(\w+)(?:\s+USING\s+(\w+))?\s*\(([^()]+)\)(?:\s+INCLUDE\s*\(([^()]+)\))?(?:\s+WHERE\s+[\w\s]+)?$/i;

const columnList = (text: string) => text.split(",").map((c) => c.trim().replace(/^"|"$/g, ""));

/**
 * Parses the file; throws on a statement that is not a plain `CREATE INDEX CONCURRENTLY IF NOT EXISTS` (covering
 * columns in INCLUDE and a partial index's simple WHERE allowed).
 */
export const parseExtraIndexes = (text: string): Array<ExtraIndex> => {
  const found: Array<ExtraIndex> = [];
  let comment: Array<string> = [];
  let pending: Array<string> = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "") {
      if (pending.length === 0) comment = [];
      continue;
    }
    if (line.startsWith("--")) {
      if (pending.length === 0) comment.push(line.replace(/^--\s?/, ""));
      continue;
    }
    pending.push(line);
    if (!line.endsWith(";")) continue;
    const statement = pending.join(" ").slice(0, -1).trim();
    pending = [];
    const m = statement.match(shape);
    if (!m) {
      throw new Error(`${extraIndexesFile}: not a CREATE INDEX CONCURRENTLY IF NOT EXISTS: ${statement}`);
    }
    found.push({
      name: m[1]!,
      table: m[2]!,
      method: (m[3] ?? "btree").toLowerCase(),
      columns: columnList(m[4]!),
      included: m[5] === undefined ? [] : columnList(m[5]),
      statement,
      purpose: comment.join(" "),
    });
    comment = [];
  }
  if (pending.length > 0) {
    throw new Error(`${extraIndexesFile}: unterminated statement: ${pending.join(" ")}`);
  }
  return found;
};

/** The same statement without CONCURRENTLY, for use inside a transaction (a database nobody else uses yet). */
export const nonConcurrentStatement = (index: ExtraIndex): string =>
  index.statement.replace(/\bCONCURRENTLY\s+/i, "");

/** Reads and parses the shipped file. */
export const readExtraIndexes: Effect.Effect<ReadonlyArray<ExtraIndex>, SqlError> = Effect.tryPromise({
  try: async () =>
    parseExtraIndexes(
      await Deno.readTextFile(new URL("../../schemas/db/extra_indexes.sql", import.meta.url)),
    ),
  catch: (cause) =>
    new SqlError({
      cause,
      message: `cannot read ${extraIndexesFile}: ${cause instanceof Error ? cause.message : String(cause)}`,
    }),
});
