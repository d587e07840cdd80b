/**
 * What the operator CLIs on the service database (`keys`, `accounts`) share: the configuration, the database
 * (SERVICE_DATABASE_URL, or the embedded one under DATA_DIR through the running service's socket when it runs),
 * its migrations, plain-text output, and exit codes (2 for a mistake in what was asked, 1 for a failure).
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import * as Reactivity from "@effect/experimental/Reactivity";
import { Cause, Effect, Exit, Logger, Option, Redacted, Scope } from "effect";
import { appConfig, type AppConfigShape, describeConfigError } from "@layers/config.ts";
import { connectOrOpen } from "@layers/embedded_service_db.ts";
import { loadMigrations, migrate } from "@layers/service_db.ts";
import { makePgSqlClient } from "@layers/sql_pg.ts";
import { requireServiceDataDir, takeInitFlag } from "./cli_data_dir.ts";

/** A mistake in what the operator asked for: exit code 2, with the usage when the command itself is wrong. */
export class CliError extends Error {
  constructor(message: string, readonly showUsage = false) {
    super(message);
  }
}

export const fail = (message: string, showUsage = false): never => {
  throw new CliError(message, showUsage);
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
  const { init, rest: args } = takeInitFlag(Deno.args);
  if (Option.isNone(settings.serviceDatabaseUrl)) await requireServiceDataDir(name, settings.dataDir, init);
  const scope = Effect.runSync(Scope.make());
  // the output stays plain text: no log lines from opening the embedded database or applying migrations
  const quiet = Logger.remove(Logger.defaultLogger);
  let code = 0;
  try {
    const sql = await Effect.runPromise(
      Option.match(settings.serviceDatabaseUrl, {
        onSome: (url) => makePgSqlClient({ url: Redacted.value(url), maxConnections: 2 }),
        onNone: () => Effect.map(connectOrOpen(`${settings.dataDir}/service`), (c) => c.sql),
      }).pipe(Scope.extend(scope), Effect.provide(Reactivity.layer), Effect.provide(quiet)),
    );
    await Effect.runPromise(
      migrate(sql, await Effect.runPromise(loadMigrations())).pipe(Effect.provide(quiet)),
    );
    const exit = await Effect.runPromiseExit(command(sql, settings, args));
    if (Exit.isFailure(exit)) throw Cause.squash(exit.cause);
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
