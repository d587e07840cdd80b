/**
 * What the operator CLIs on the service database (`keys`, `accounts`) share: the configuration, the database
 * (SERVICE_DATABASE_URL, or the embedded one under DATA_DIR through the running service's socket when it runs,
 * waiting for it while the service is still starting), its migrations, plain-text output, and exit codes (2 for
 * a mistake in what was asked, 1 for a failure), and telling running instances on Redis when keys changed.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import * as Reactivity from "@effect/experimental/Reactivity";
import { Cause, Effect, ExecutionStrategy, Exit, Logger, Option, Redacted, Scope } from "effect";
import { join } from "node:path";
import { appConfig, type AppConfigShape, describeConfigError } from "@layers/config.ts";
import { connectOrOpen, connectToRunning } from "@layers/embedded_service_db.ts";
import { publishKeyChange } from "@layers/key_changes.ts";
import { makeKeyStore } from "@layers/key_store.ts";
import { loadMigrations, migrate } from "@layers/service_db.ts";
import { makePgSqlClient } from "@layers/sql_pg.ts";
import {
  type DataDirFlags,
  requireServiceDataDir,
  takeDataDirFlags,
  waitForStartingService,
} from "./cli_data_dir.ts";

/** A mistake in what the operator asked for: exit code 2, with the usage when the command itself is wrong. */
export class CliError extends Error {
  constructor(message: string, readonly showUsage = false) {
    super(message);
  }
}

export const fail = (message: string, showUsage = false): never => {
  throw new CliError(message, showUsage);
};

// the output stays plain text: no log lines from opening the embedded database or applying migrations
const quiet = Logger.remove(Logger.defaultLogger);

/** The running service's socket answers: a client on it, kept in `scope`; else undefined (nothing kept). */
const connectToService = async (directory: string, scope: Scope.Scope): Promise<SqlClient | undefined> => {
  const attempt = Effect.runSync(Scope.fork(scope, ExecutionStrategy.sequential));
  const exit = await Effect.runPromiseExit(
    connectToRunning(directory).pipe(
      Scope.extend(attempt),
      Effect.provide(Reactivity.layer),
      Effect.provide(quiet),
    ),
  );
  if (Exit.isSuccess(exit)) return exit.value;
  await Effect.runPromise(Scope.close(attempt, Exit.void));
  return undefined;
};

/**
 * The embedded service database under `dataDir`: through the socket of the service that serves it; while a
 * service holds DATA_DIR without serving it yet (it is starting), through that socket once it answers; else
 * opened here (refused unless it exists or `--init`).
 */
const embeddedServiceDb = async (
  name: string,
  dataDir: string,
  flags: DataDirFlags,
  scope: Scope.Scope,
): Promise<SqlClient> => {
  const directory = join(dataDir, "service");
  const running = await connectToService(directory, scope) ??
    await waitForStartingService(name, dataDir, flags.waitSeconds, () => connectToService(directory, scope));
  if (running) return running;
  await requireServiceDataDir(name, dataDir, flags);
  return await Effect.runPromise(
    Effect.map(connectOrOpen(directory), (c) => c.sql).pipe(Scope.extend(scope), Effect.provide(quiet)),
  );
};

/**
 * When the command changed keys (the key store's change counter moved) and REDIS_URL is set, tells the running
 * instances on Redis, so their caches drop every key at once rather than at their next poll.
 */
const announceKeyChanges = async (sql: SqlClient, settings: AppConfigShape, before: number) => {
  if (Option.isNone(settings.redisUrl)) return;
  const after = await Effect.runPromise(makeKeyStore(sql, settings.apiKeyPrefix).generation);
  if (after === before) return;
  const [row] = await Effect.runPromise(
    sql<{ uuid: string }>`select uuid::text as uuid from cds.installation`,
  );
  const { Redis } = await import("ioredis");
  const redis = new Redis(Redacted.value(settings.redisUrl.value), {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
  });
  redis.on("error", () => {});
  try {
    await redis.connect();
    await publishKeyChange(redis, row!.uuid, {});
  } catch (error) {
    console.error(`not announced on Redis (instances see it at their next poll): ${error}`);
  } finally {
    redis.disconnect();
  }
};

/** Runs `command` on the service database and exits: its text on stdout, or the error on stderr. */
export const runServiceDbCli = async (
  name: string,
  usage: string,
  command: (sql: SqlClient, config: AppConfigShape, args: Array<string>) => Effect.Effect<string, unknown>,
): Promise<never> => {
  const config = await Effect.runPromise(Effect.either(appConfig));
  if (config._tag === "Left") {
    console.error(`${name}: invalid configuration: ${describeConfigError(config.left)}`);
    Deno.exit(2);
  }
  const settings = config.right;
  const flags = takeDataDirFlags(name, Deno.args);
  const args = flags.rest;
  const scope = Effect.runSync(Scope.make());
  let code = 0;
  try {
    const sql = await Option.match(settings.serviceDatabaseUrl, {
      onSome: (url) =>
        Effect.runPromise(
          makePgSqlClient({ url: Redacted.value(url), maxConnections: 2 }).pipe(
            Scope.extend(scope),
            Effect.provide(Reactivity.layer),
          ),
        ),
      onNone: () => embeddedServiceDb(name, settings.dataDir, flags, scope),
    });
    await Effect.runPromise(
      migrate(sql, await Effect.runPromise(loadMigrations())).pipe(Effect.provide(quiet)),
    );
    const before = await Effect.runPromise(makeKeyStore(sql, settings.apiKeyPrefix).generation);
    const exit = await Effect.runPromiseExit(command(sql, settings, args));
    if (Exit.isFailure(exit)) throw Cause.squash(exit.cause);
    await announceKeyChanges(sql, settings, before);
    console.log(exit.value);
  } catch (error) {
    console.error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof CliError && error.showUsage) console.error(usage);
    code = error instanceof CliError ? 2 : 1;
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void)).catch(() => {});
  }
  Deno.exit(code);
};
