/**
 * The `/* prepared *\/` mark (`pg_prepared.ts`) on the embedded database. PGlite sends every statement as an
 * unnamed one, planned afresh each call; for the big single statements that mark asks for (a transaction's
 * read: about 30 subplans) planning is most of the cost there too: 15-27 ms of planning against 3-8 ms of
 * execution for one explorer transaction on the demo chain. PGlite's protocol bind takes no parameters for a
 * named statement, so the statement is made once per session with SQL's `PREPARE` (its parameter types
 * inferred as Parse infers them) and run with `EXECUTE` and the values as quoted literals, each coerced to its
 * parameter's type as a text-format bind is. PostgreSQL's plan cache then works as on a pooled connection: a
 * generic plan after five custom ones, only when it is not worse.
 *
 * Values other than text, numbers, booleans and null (bytes, arrays, dates) keep the unnamed path, as does any
 * statement past `maxPrepared` distinct texts (each stays in the session's memory).
 */
import type { PGlite, Results } from "@electric-sql/pglite";
import { marked } from "./pg_prepared.ts";

/** Distinct statement texts a session prepares at most. */
export const maxPrepared = 256;

type Literal = string | number | bigint | boolean | null;

const isLiteral = (value: unknown): value is Literal =>
  value === null || ["string", "number", "bigint", "boolean"].includes(typeof value);

/** A SQL literal of `value` (standard_conforming_strings is on: only quotes are doubled). */
const quoted = (value: Literal): string =>
  value === null ? "null" : `'${String(value).replaceAll("'", "''")}'`;

/** One session's prepared statements: run marked statements through it, the rest as before. */
export const makePreparedStatements = (db: PGlite) => {
  const names = new Map<string, string>();
  return {
    /**
     * Runs `sql` with `params`: a marked statement whose values can be written as literals through its prepared
     * form (prepared on first use), any other as an unnamed statement.
     */
    query: async <T>(
      sql: string,
      params: ReadonlyArray<unknown>,
      rowMode: "object" | "array",
    ): Promise<Results<T>> => {
      if (!marked.test(sql) || params.length === 0 || !params.every(isLiteral)) {
        return db.query<T>(sql, params as Array<unknown>, { rowMode });
      }
      let name = names.get(sql);
      if (name === undefined) {
        if (names.size >= maxPrepared) return db.query<T>(sql, params as Array<unknown>, { rowMode });
        const next = `cds_p${names.size + 1}`;
        // not transactional: once made it stays, even if the transaction around it rolls back
        await db.exec(`prepare ${next} as ${sql}`);
        names.set(sql, next);
        name = next;
      }
      const values = params.map((v) => quoted(v as Literal)).join(", ");
      return db.query<T>(`execute ${name}(${values})`, [], { rowMode });
    },
    /** How many statements this session has prepared. */
    size: () => names.size,
  };
};
