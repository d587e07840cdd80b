/**
 * `ServiceDatabase`: the service's own read-write database (API keys, usage), PostgreSQL when
 * `SERVICE_DATABASE_URL` is set, else embedded PGlite under `DATA_DIR/service` (served on a Unix socket there,
 * so the keys CLI can reach it while the service runs: embedded_service_db.ts). Migrations in
 * `schemas/db/service/NNNN_*.sql` are applied at start, in order, once, under an advisory lock (`migrate`).
 */
import * as Reactivity from "@effect/experimental/Reactivity";
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Context, Effect, Layer, Option, Redacted } from "effect";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { AppConfig, redactUrl } from "./config.ts";
import { scopedAttempt, waitFor } from "./dependencies.ts";
import { makePgSqlClient } from "./sql_pg.ts";
import { openAndServe } from "./embedded_service_db.ts";
import { phase } from "./startup_phase.ts";

export interface ServiceDatabaseShape {
  readonly sql: SqlClient;
  readonly backend: "postgres" | "pglite";
  readonly location: string;
}

export class ServiceDatabase
  extends Context.Tag("ServiceDatabase")<ServiceDatabase, ServiceDatabaseShape>() {}

export class ServiceDatabaseError extends Error {
  override readonly name = "ServiceDatabaseError";
}

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

const migrationsDir = new URL("../schemas/db/service/", import.meta.url);

/** The migrations shipped with the service, ordered by version (`0001_name.sql`). */
export const loadMigrations = (): Effect.Effect<ReadonlyArray<Migration>> =>
  Effect.promise(async () => {
    const files = (await readdir(migrationsDir)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
    return Promise.all(files.map(async (file) => ({
      version: Number(file.slice(0, 4)),
      name: file.slice(5, -4),
      sql: await readFile(new URL(file, migrationsDir), "utf8"),
    })));
  });

/** Any fixed number serves: every instance of the service takes the same one. */
const migrationLock = 7_166_389_001;

/**
 * Applies the migrations not yet recorded in `cds.schema_migrations`; returns the versions applied. All of them
 * run in one transaction holding an advisory lock, so instances starting together on an empty database take
 * turns: the first applies, the others then find nothing pending.
 */
export const migrate = (
  sql: SqlClient,
  migrations: ReadonlyArray<Migration>,
): Effect.Effect<ReadonlyArray<number>, SqlError> =>
  sql.withTransaction(Effect.gen(function* () {
    yield* sql.unsafe(`select pg_advisory_xact_lock(${migrationLock})`);
    yield* sql.unsafe(`create schema if not exists cds;
      create table if not exists cds.schema_migrations (
        version integer primary key,
        name text not null,
        applied_at timestamptz not null default now()
      )`);
    const applied = new Set(
      (yield* sql<{ version: number }>`select version from cds.schema_migrations`).map((r) => r.version),
    );
    const pending = migrations.filter((m) => !applied.has(m.version));
    for (const m of pending) {
      yield* sql.unsafe(m.sql);
      yield* sql`insert into cds.schema_migrations (version, name) values (${m.version}, ${m.name})`;
      yield* Effect.logInfo(`service database: applied migration ${m.version} ${m.name}`);
    }
    return pending.map((m) => m.version);
  }));

const open = Effect.gen(function* () {
  const config = yield* AppConfig;
  if (Option.isSome(config.serviceDatabaseUrl)) {
    const url = config.serviceDatabaseUrl.value;
    const sql = yield* waitFor(
      "service database",
      scopedAttempt(makePgSqlClient({ url: Redacted.value(url), maxConnections: 8 })),
    );
    return { sql, backend: "postgres", location: redactUrl(url) } satisfies ServiceDatabaseShape;
  }
  const location = join(config.dataDir, "service");
  const sql = yield* waitFor("service database", openAndServe(location), { transient: () => false });
  return { sql, backend: "pglite", location } satisfies ServiceDatabaseShape;
});

export const ServiceDatabaseLive: Layer.Layer<ServiceDatabase, ServiceDatabaseError, AppConfig> = Layer
  .scoped(
    ServiceDatabase,
    phase("service database: open and migrate", () =>
      Effect.gen(function* () {
        const db = yield* open;
        yield* migrate(db.sql, yield* loadMigrations());
        yield* Effect.logInfo(`service database: ${db.backend} ${db.location}`);
        return db;
      })).pipe(Effect.mapError((e) => new ServiceDatabaseError(`service database: ${e.message}`))),
  ).pipe(Layer.provide(Reactivity.layer));
