/**
 * A `SqlClient` over real PostgreSQL (node-postgres pool through @effect/sql-pg), with the value contract of
 * `sql_types.ts`. Read-only clients set `default_transaction_read_only`, so a stray write fails loudly instead of
 * touching a db-sync database; writers open `BEGIN READ WRITE` explicitly.
 */
import { PgClient } from "@effect/sql-pg";
import type { SqlClient } from "@effect/sql/SqlClient";
import { SqlError } from "@effect/sql/SqlError";
import type { Reactivity } from "@effect/experimental/Reactivity";
import { Effect, type Scope } from "effect";
import pg from "pg";
import { textParsers } from "./sql_types.ts";
import { AcquireTimer, registerPoolUse } from "./pool_use.ts";
import { isPrepared } from "@src/queries/prepared.ts";

export interface PgClientOptions {
  readonly url: string;
  readonly maxConnections?: number;
  readonly readOnly?: boolean;
  /** Per-statement limit in milliseconds; 0 = none. */
  readonly statementTimeoutMs?: number;
  readonly applicationName?: string;
  /** How long to wait for a connection (default 5 s). */
  readonly connectTimeoutMs?: number;
  /** Sessions without JIT compilation: short statements whose estimates are far above what they read. */
  readonly noJit?: boolean;
}

const byteaParser = (text: string): Uint8Array => {
  const buffer = pg.types.getTypeParser(17, "text")(text) as Uint8Array;
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
};

const getTypeParser = (oid: number, format?: "text" | "binary"): (value: string) => unknown => {
  if (format === "binary") return pg.types.getTypeParser(oid, "binary") as (value: string) => unknown;
  if (oid === 17) return byteaParser;
  return textParsers[oid] ?? pg.types.getTypeParser(oid, "text");
};

/** pg's own parsers, with ours for int8/numeric/timestamp/bytea. */
export const pgTypes = { getTypeParser } as unknown as pg.CustomTypesConfig;

const sessionOptions = (o: PgClientOptions): string =>
  [
    o.readOnly ? "-c default_transaction_read_only=on" : "",
    o.statementTimeoutMs ? `-c statement_timeout=${o.statementTimeoutMs}` : "",
    o.noJit ? "-c jit=off" : "",
    "-c TimeZone=UTC",
  ].filter((s) => s !== "").join(" ");

/**
 * Times every connection the client takes from the pool (@effect/sql-pg asks with a callback): how long callers
 * wait for one is what a too-small pool or a slow database shows first.
 */
const timeAcquisitions = (pool: pg.Pool, timer: AcquireTimer): void => {
  const connect = pool.connect.bind(pool);
  pool.connect = ((callback?: Parameters<typeof connect>[0]) => {
    if (typeof callback !== "function") return connect(); // the promise form (not used by sql-pg): untimed
    const startedAt = timer.started();
    connect((err, client, done) => {
      if (err) timer.gaveUp();
      else timer.acquired(startedAt);
      callback(err, client, done);
    });
  }) as typeof pool.connect;
};

/** One name per statement text, the same on every connection (node-postgres prepares it once per connection). */
const statementNames = new Map<string, string>();

/**
 * Sends the statements marked `prepared` (src/queries/prepared.ts) as named ones: each connection parses them
 * once and PostgreSQL moves to a generic plan after five executions, instead of planning every request.
 */
const keepPrepared = (client: pg.PoolClient): void => {
  const query = client.query.bind(client) as (...args: Array<unknown>) => unknown;
  client.query = ((config: unknown, ...rest: Array<unknown>) => {
    if (typeof config !== "string" || !Array.isArray(rest[0]) || !isPrepared(config)) {
      return query(config, ...rest);
    }
    let name = statementNames.get(config);
    if (name === undefined) {
      name = `cds_${statementNames.size + 1}`;
      statementNames.set(config, name);
    }
    return query({ name, text: config, values: rest[0] }, ...rest.slice(1));
  }) as typeof client.query;
};

/** Opens a pool, checks it answers, and closes it with the scope. */
export const makePgSqlClient = (
  o: PgClientOptions,
): Effect.Effect<SqlClient, SqlError, Scope.Scope | Reactivity> => {
  let opened: pg.Pool | undefined;
  const timer = new AcquireTimer();
  return Effect.tap(
    PgClient.fromPool({
      acquire: Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const pool = new pg.Pool({
              connectionString: o.url,
              max: o.maxConnections ?? 10,
              options: sessionOptions(o),
              application_name: o.applicationName ?? "cardano-data-service",
              types: pgTypes,
              connectionTimeoutMillis: o.connectTimeoutMs ?? 5_000,
            });
            pool.on("error", () => {});
            pool.on("connect", keepPrepared);
            try {
              await pool.query("select 1");
            } catch (cause) {
              await pool.end().catch(() => {});
              throw cause;
            }
            timeAcquisitions(pool, timer);
            opened = pool;
            return pool;
          },
          catch: (cause) =>
            new SqlError({ cause, message: `cannot connect to PostgreSQL: ${describe(cause)}` }),
        }),
        (pool) => Effect.promise(() => pool.end().catch(() => {})),
      ),
      types: pgTypes,
    }),
    (sql) =>
      registerPoolUse(sql, () => ({
        open: opened?.totalCount ?? 0,
        busy: (opened?.totalCount ?? 0) - (opened?.idleCount ?? 0),
        waiting: opened?.waitingCount ?? 0,
        acquisitions: timer.acquisitions,
        waitSeconds: timer.waitSeconds,
      })),
  );
};

const describe = (cause: unknown): string =>
  cause instanceof Error ? cause.message || cause.constructor.name : String(cause);
