/**
 * The account programs over a real service database, with real layers: the account store on that database, the
 * in-memory attempt throttle, password hashes at `testHashParameters`, and no mailer or a real SMTP mailer (`smtpServer` below is a real SMTP server on
 * a random local port). `run` runs a program and returns its Exit, and every log line it wrote is kept in
 * `logs`, for the "no secret in the logs" checks.
 */
import * as Reactivity from "@effect/experimental/Reactivity";
import type { SqlClient } from "@effect/sql/SqlClient";
import { ConfigProvider, Effect, Exit, Layer, Logger, Scope } from "effect";
import { join } from "node:path";
import { connectOrOpen } from "@layers/embedded_service_db.ts";
import { makePgSqlClient } from "@layers/sql_pg.ts";
import { SMTPServer } from "smtp-server";
import { AccountStore, makeAccountStore } from "@layers/account_store.ts";
import { AttemptThrottle, makeMemoryThrottle } from "@layers/attempt_throttle.ts";
import { AppConfig, appConfig } from "@layers/config.ts";
import { Mailer, type MailerShape, makeSmtpMailer, noMailer } from "@layers/mailer.ts";
import { PasswordHashParameters, type ScryptParameters } from "@layers/password_hash.ts";
import { loadMigrations, migrate } from "@layers/service_db.ts";
import { cleanEnv } from "./clean_env.ts";

/**
 * The programs' tests hash with these (explicitly, through their own layer; the service and the CLIs always use
 * the defaults): the same code at a cost of milliseconds, so suites that sign up and log in many times stay fast.
 * Tests of the parameters themselves pass `hashParameters: defaultParameters`.
 */
export const testHashParameters: ScryptParameters = { N: 2 ** 10, r: 8, p: 1 };

export type AccountServices = AccountStore | AttemptThrottle | Mailer | AppConfig;

export interface AccountsHarness {
  readonly run: <A, E>(program: Effect.Effect<A, E, AccountServices>) => Promise<Exit.Exit<A, E>>;
  /** Runs a program that must succeed. */
  readonly ok: <A, E>(program: Effect.Effect<A, E, AccountServices>) => Promise<A>;
  readonly logs: Array<string>;
}

export const testConfig = (env: Record<string, string> = {}) =>
  Effect.runPromise(
    Effect.withConfigProvider(appConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))),
  );

/** Programs over `sql` (migrated here), mailing through `mailer` (none by default). */
export const accountsHarness = async (
  sql: SqlClient,
  options: { mailer?: MailerShape; env?: Record<string, string>; hashParameters?: ScryptParameters } = {},
): Promise<AccountsHarness> => {
  await Effect.runPromise(migrate(sql, await Effect.runPromise(loadMigrations())));
  const config = await testConfig(options.env);
  const logs: Array<string> = [];
  const logger = Logger.replace(
    Logger.defaultLogger,
    Logger.map(Logger.logfmtLogger, (line) => void logs.push(line)),
  );
  const layer = Layer.mergeAll(
    Layer.succeed(AccountStore, makeAccountStore(sql, config.apiKeyPrefix)),
    Layer.succeed(AttemptThrottle, makeMemoryThrottle()),
    Layer.succeed(Mailer, options.mailer ?? noMailer),
    Layer.succeed(AppConfig, config),
    Layer.succeed(PasswordHashParameters, options.hashParameters ?? testHashParameters),
    logger,
  );
  const run = <A, E>(program: Effect.Effect<A, E, AccountServices>) =>
    Effect.runPromiseExit(Effect.provide(program, layer));
  const ok = async <A, E>(program: Effect.Effect<A, E, AccountServices>) => {
    const exit = await run(program);
    if (Exit.isFailure(exit)) throw new Error(`program failed: ${JSON.stringify(exit.cause)}`);
    return exit.value;
  };
  return { run, ok, logs };
};

/** The failure's tag, or "success". */
export const outcome = (exit: Exit.Exit<unknown, unknown>): string =>
  Exit.isSuccess(exit) ? "success" : Exit.match(exit, {
    onSuccess: () => "success",
    onFailure: (cause) => {
      const failure = cause._tag === "Fail" ? cause.error : undefined;
      return (failure as { _tag?: string } | undefined)?._tag ?? `defect: ${JSON.stringify(cause)}`;
    },
  });

/** The failure itself (for its fields), or undefined. */
export const failureOf = <E>(exit: Exit.Exit<unknown, E>): E | undefined =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined;

export interface ReceivedMail {
  readonly to: string;
  readonly raw: string;
}

export interface TestSmtp {
  readonly url: string;
  readonly mails: Array<ReceivedMail>;
  /** Resolves with the next mail to `to` (one already received counts). */
  readonly mailTo: (to: string, timeoutMs?: number) => Promise<ReceivedMail>;
  readonly close: () => Promise<void>;
}

/** A real SMTP server on a random local port, keeping what it receives (no TLS, no authentication). */
export const smtpServer = async (): Promise<TestSmtp> => {
  const mails: Array<ReceivedMail> = [];
  const waiting: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Array<Uint8Array> = [];
      stream.on("data", (c: Uint8Array) => chunks.push(c));
      stream.on("end", () => {
        const raw = new TextDecoder().decode(
          chunks.reduce((a, b) => new Uint8Array([...a, ...b]), new Uint8Array()),
        );
        for (const to of session.envelope.rcptTo) mails.push({ to: to.address, raw });
        for (const w of waiting.splice(0)) w();
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve) => {
    const listener = server.listen(0, "127.0.0.1", () => {
      const address = listener.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
  const mailTo = async (to: string, timeoutMs = 15_000) => {
    const until = Date.now() + timeoutMs;
    let seen = 0;
    while (Date.now() < until) {
      const found = mails.slice(seen).find((m) => m.to === to);
      if (found) {
        mails.splice(mails.indexOf(found), 1);
        return found;
      }
      seen = 0;
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        setTimeout(resolve, 200);
      });
    }
    throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
  };
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    mailTo,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** The SMTP mailer the service would build for `url`. */
export const smtpMailer = (url: string): Promise<MailerShape> =>
  Effect.runPromise(makeSmtpMailer(url, "cds test <noreply@example.test>"));

/** The link in a mail's text (quoted-printable soft breaks undone). */
export const linkIn = (mail: ReceivedMail): string => {
  const text = mail.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  const m = text.match(/https?:\/\/\S+?token=[A-Za-z0-9_-]{43}/);
  if (!m) throw new Error(`no link in mail:\n${mail.raw}`);
  return m[0];
};

export const tokenOf = (link: string): string => new URL(link).searchParams.get("token")!;

/**
 * The service database of a test environment, from this process: over the running service's socket (embedded)
 * or SERVICE_DATABASE_URL (PostgreSQL), as the CLIs reach it.
 */
export const serviceDatabaseOf = async (
  env: Record<string, string>,
): Promise<{ readonly sql: SqlClient; readonly close: () => Promise<void> }> => {
  const scope = Effect.runSync(Scope.make());
  const sql = await Effect.runPromise(
    (env.SERVICE_DATABASE_URL
      ? makePgSqlClient({ url: env.SERVICE_DATABASE_URL, maxConnections: 2 })
      : Effect.map(connectOrOpen(join(env.DATA_DIR!, "service")), (c) => c.sql)).pipe(
        Scope.extend(scope),
        Effect.provide(Reactivity.layer),
        Effect.provide(Logger.remove(Logger.defaultLogger)),
      ),
  );
  return { sql, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) };
};

/** Runs the accounts CLI with the environment's settings; returns its output lines and exit code. */
export const accountsCli = async (env: Record<string, string>, ...args: Array<string>) => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/accounts.ts", ...args, "--init"],
    clearEnv: true,
    env: { ...cleanEnv(), NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b).trimEnd();
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
};
