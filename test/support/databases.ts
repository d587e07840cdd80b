/**
 * Fresh, empty databases for tests: embedded PGlite by default; a new database on a real PostgreSQL server when
 * `TEST_DATABASE_URL` is set (CI sets it). Both come back as the same `SqlClient` the service uses.
 */
import * as Reactivity from "@effect/experimental/Reactivity";
import type { SqlClient } from "@effect/sql/SqlClient";
import { Effect, Exit, Scope } from "effect";
import pg from "pg";
import { makePgSqlClient } from "@layers/sql_pg.ts";
import { makePgliteSqlClient } from "@layers/sql_pglite.ts";

export const testDatabaseUrl: string | undefined = Deno.env.get("TEST_DATABASE_URL") || undefined;
export const backendName: "postgres" | "pglite" = testDatabaseUrl ? "postgres" : "pglite";

export interface TestDatabase {
  readonly sql: SqlClient;
  /** A connection URL when the backend is PostgreSQL (for CLIs and the service under test). */
  readonly url: string | undefined;
  readonly backend: "postgres" | "pglite";
  readonly close: () => Promise<void>;
}

const withDatabaseName = (url: string, name: string): string => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

/** Creates an empty database (`CREATE DATABASE` on PostgreSQL; in-memory PGlite otherwise). */
export const createTestDatabase = async (label: string): Promise<TestDatabase> => {
  const scope = Effect.runSync(Scope.make());
  const run = <A>(e: Effect.Effect<A, unknown, Scope.Scope | Reactivity.Reactivity>) =>
    Effect.runPromise(e.pipe(Scope.extend(scope), Effect.provide(Reactivity.layer)));
  if (!testDatabaseUrl) {
    const { sql } = await run(makePgliteSqlClient({}));
    return {
      sql,
      url: undefined,
      backend: "pglite",
      close: () => Effect.runPromise(Scope.close(scope, Exit.void)),
    };
  }
  const name = `test_${label.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${crypto.randomUUID().slice(0, 8)}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = withDatabaseName(testDatabaseUrl, name);
  const sql = await run(makePgSqlClient({ url, maxConnections: 4 }));
  return {
    sql,
    url,
    backend: "postgres",
    close: async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void));
      const a = new pg.Client({ connectionString: testDatabaseUrl });
      await a.connect();
      await a.query(`drop database if exists "${name}" with (force)`);
      await a.end();
    },
  };
};
