/**
 * Every setting the service reads, from environment variables through Effect `Config`, validated once at start.
 * A bad value fails with one line naming the variable. Secrets (database and Redis URLs) stay `Redacted`.
 */
import { Config, ConfigError, Context, Effect, Either, Layer, LogLevel, Option, Redacted } from "effect";
import type { Network } from "@schemas/network.ts";
import { type Cidr, parseTrustedProxies } from "@src/domain/client_address.ts";

export interface NetworkConfig {
  /**
   * The db-sync database: one URL, or several copies of it (a primary and its streaming replicas, or replicas
   * only) whose reads are spread over the healthy ones (chain_replicas.ts); empty = the embedded PGlite demo chain
   * under DATA_DIR.
   */
  readonly databaseUrls: ReadonlyArray<Redacted.Redacted<string>>;
  /** An Ogmios upstream (ws:// or wss://); none = answer from the chain database. */
  readonly ogmiosUrl: Option.Option<string>;
}

export interface AppConfigShape {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly networks: Readonly<Record<Network, NetworkConfig>>;
  readonly serviceDatabaseUrl: Option.Option<Redacted.Redacted<string>>;
  /** How many blocks a chain database's member may trail the most advanced one before it is taken out of use. */
  readonly replicaMaxLagBlocks: number;
  /** Statements marked `/* prepared *\/` prepared once per chain database connection (layers/pg_prepared.ts). */
  readonly chainPreparedStatements: boolean;
  readonly redisUrl: Option.Option<Redacted.Redacted<string>>;
  readonly logLevel: LogLevel.LogLevel;
  /** The `<PREFIX>` of new API keys. */
  readonly apiKeyPrefix: string;
  /** The operator's own pool (bech32 `pool1…`), reported by /api/public/pool-status; none = that endpoint says so. */
  readonly poolId: Option.Option<string>;
  /** An ADA/USD quote API (CoinGecko's simple-price format, or `{"ada_usd", "updated_at"}`); none = demo feed. */
  readonly priceUrl: Option.Option<string>;
  readonly limits: Limits;
  /** Active keys a FREE account may hold (its FREE keys share one set of FREE budgets either way). */
  readonly freeKeysPerAccount: number;
  /** Seconds between devnet blocks on an embedded demo chain without upstream; 0 = no devnet (chain as seeded). */
  readonly devnetBlockSeconds: number;
  /** Browser origins allowed to call the API (CORS): `*`, a list of origins, or none (the default). */
  readonly corsOrigins: CorsOrigins;
  /** The largest request body or WebSocket message accepted, in bytes. */
  readonly maxBodyBytes: number;
  /** Failed authentications an address may make per 10 s before it is answered 429; 0 = no throttle. */
  readonly authFailuresPer10s: number;
  /** Reverse proxies whose `X-Forwarded-For`/`Forwarded` name the client; empty = the peer is the client. */
  readonly trustedProxies: ReadonlyArray<Cidr>;
  /** A GraphQL statement's time limit (ms): past it the statement is cancelled (`statement-timeout`). */
  readonly graphqlTimeoutMs: number;
  /** How long start-up waits for databases, Redis and Ogmios upstreams before giving up (seconds). */
  readonly startupTimeoutSeconds: number;
  /** Seconds between `memory` log lines (RSS, V8 heap, wasm), for soaks and leak hunts; 0 = none. */
  readonly memoryLogSeconds: number;
  /** When set, `GET /metrics` on the main port answers with `Authorization: Bearer <token>`; none = 404. */
  readonly metricsToken: Option.Option<Redacted.Redacted<string>>;
  /** When set, /metrics is served without a token by a listener of its own on this port (at HOST). */
  readonly metricsPort: Option.Option<number>;
  /** An SMTP server (smtp:// or smtps://, credentials in the URL) for account mails; none = no mail is sent. */
  readonly smtpUrl: Option.Option<Redacted.Redacted<string>>;
  /** The From address of account mails. */
  readonly mailFrom: string;
  /** Where people reach the service (links in mails, the cookie's Secure flag); none = http://HOST:PORT. */
  readonly publicUrl: Option.Option<string>;
  /** The session cookie's Secure flag: on when PUBLIC_URL is https://, or when COOKIE_SECURE=true. */
  readonly cookieSecure: boolean;
  /** Strict-Transport-Security's max-age (seconds) when PUBLIC_URL is https://; 0 = no such header. */
  readonly hstsMaxAge: number;
}

/** `*` (any origin) or the exact origins allowed; empty = no CORS headers at all. */
export type CorsOrigins = "*" | ReadonlyArray<string>;

/**
 * Per-key limits (spec: Limits); the FREE keys of a person's account share one set (budget_subject.ts). 0 means
 * no limit.
 */
export interface Limits {
  readonly ratePerSecond: Readonly<Record<"FREE" | "PAID", number>>;
  readonly graphqlPerSecond: Readonly<Record<"FREE" | "PAID", number>>;
  readonly dailyRequests: Readonly<Record<"FREE" | "PAID", number>>;
  readonly submissionsPerHour: Readonly<Record<"FREE" | "PAID", number>>;
}

export class AppConfig extends Context.Tag("AppConfig")<AppConfig, AppConfigShape>() {}

const invalid = (name: string, message: string) => ConfigError.InvalidData([name], message);

/** An optional URL: unset or empty means none (so `REDIS_URL=` switches a feature off). */
const optionalUrl = (name: string, protocols: ReadonlyArray<string>) =>
  Config.string(name).pipe(
    Config.withDefault(""),
    Config.mapOrFail((text): Either.Either<Option.Option<string>, ConfigError.ConfigError> => {
      if (text.trim() === "") return Either.right(Option.none());
      try {
        const u = new URL(text);
        if (protocols.includes(u.protocol)) return Either.right(Option.some(text));
        return Either.left(invalid(name, `expected a ${protocols.join(" or ")}// URL, got ${u.protocol}//`));
      } catch {
        return Either.left(invalid(name, "expected a URL, got a value that does not parse as one"));
      }
    }),
  );

const secretUrl = (name: string, protocols: ReadonlyArray<string>) =>
  Config.map(optionalUrl(name, protocols), Option.map((text) => Redacted.make(text)));
const postgresUrl = (name: string) => secretUrl(name, ["postgres:", "postgresql:"]);

const port = Config.string("PORT").pipe(
  Config.withDefault("3000"),
  Config.mapOrFail((text) => {
    const n = Number(text);
    return /^\d+$/.test(text) && n <= 65535
      ? Either.right(n)
      : Either.left(invalid("PORT", `expected an integer from 0 to 65535, got "${text}"`));
  }),
);

const host = Config.string("HOST").pipe(
  Config.withDefault("127.0.0.1"),
  Config.mapOrFail((text) =>
    /^[A-Za-z0-9.:\-[\]]+$/.test(text)
      ? Either.right(text.replace(/^\[(.*)\]$/, "$1"))
      : Either.left(invalid("HOST", `expected a host name or IP address, got "${text}"`))
  ),
);

const logLevels: Readonly<Record<string, LogLevel.LogLevel>> = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  warn: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None,
};
const logLevel = Config.string("LOG_LEVEL").pipe(
  Config.withDefault("info"),
  Config.mapOrFail((text) => {
    const level = logLevels[text.toLowerCase()];
    return level ? Either.right(level) : Either.left(
      invalid("LOG_LEVEL", `expected one of ${Object.keys(logLevels).join(", ")}, got "${text}"`),
    );
  }),
);

const dataDir = Config.string("DATA_DIR").pipe(
  Config.withDefault("./data"),
  Config.mapOrFail((text) =>
    text.trim() === "" ? Either.left(invalid("DATA_DIR", "must not be empty")) : Either.right(text)
  ),
);

/**
 * A chain database: one PostgreSQL URL or a comma-separated list of them (copies of one db-sync database). The
 * embedded database has no replicas: every entry must be a postgres:// URL, each named once.
 */
const postgresUrls = (name: string) =>
  Config.string(name).pipe(
    Config.withDefault(""),
    Config.mapOrFail(
      (text): Either.Either<ReadonlyArray<Redacted.Redacted<string>>, ConfigError.ConfigError> => {
        if (text.trim() === "") return Either.right([]);
        const entries = text.split(",").map((s) => s.trim());
        const urls: Array<Redacted.Redacted<string>> = [];
        for (const [i, entry] of entries.entries()) {
          const which = entries.length > 1 ? `entry ${i + 1} of ${entries.length}: ` : "";
          if (entry === "") return Either.left(invalid(name, `${which}empty (a comma too many?)`));
          let u: URL;
          try {
            u = new URL(entry);
          } catch {
            return Either.left(
              invalid(name, `${which}expected a URL, got a value that does not parse as one`),
            );
          }
          if (u.protocol !== "postgres:" && u.protocol !== "postgresql:") {
            return Either.left(invalid(
              name,
              `${which}expected a postgres: or postgresql:// URL, got ${u.protocol}// ` +
                "(replicas are PostgreSQL databases: the embedded database is used when the variable is unset)",
            ));
          }
          if (entries.indexOf(entry) !== i) return Either.left(invalid(name, `${which}the same URL twice`));
          urls.push(Redacted.make(entry));
        }
        return Either.right(urls);
      },
    ),
  );

const networkConfig = (prefix: "MAINNET" | "PREPROD"): Config.Config<NetworkConfig> =>
  Config.all({
    databaseUrls: postgresUrls(`${prefix}_DATABASE_URL`),
    ogmiosUrl: optionalUrl(`${prefix}_OGMIOS_URL`, ["ws:", "wss:"]),
  });

const count = (name: string, fallback: number) =>
  Config.string(name).pipe(
    Config.withDefault(String(fallback)),
    Config.mapOrFail((text) =>
      /^\d+$/.test(text) && Number(text) <= 1e9
        ? Either.right(Number(text))
        : Either.left(invalid(name, `expected a whole number (0 = no limit), got "${text}"`))
    ),
  );

const apiKeyPrefix = Config.string("API_KEY_PREFIX").pipe(
  Config.withDefault("cds"),
  Config.mapOrFail((text) =>
    /^[A-Za-z0-9]{1,12}$/.test(text)
      ? Either.right(text)
      : Either.left(invalid("API_KEY_PREFIX", `expected 1 to 12 letters or digits, got "${text}"`))
  ),
);

/**
 * The spec's limits as defaults. GraphQL: the spec gives 100/500 req/s in the endpoint table and 10/100 in its
 * GraphQL guide; we default to the guide's 10/100 (a GraphQL request can cost as much as dozens of REST calls) and
 * count GraphQL requests against the general rate as well.
 */
const limits: Config.Config<Limits> = Config.all({
  ratePerSecond: Config.all({ FREE: count("RATE_LIMIT_FREE", 100), PAID: count("RATE_LIMIT_PAID", 500) }),
  graphqlPerSecond: Config.all({
    FREE: count("GRAPHQL_RATE_FREE", 10),
    PAID: count("GRAPHQL_RATE_PAID", 100),
  }),
  dailyRequests: Config.all({ FREE: count("DAILY_QUOTA_FREE", 100_000), PAID: count("DAILY_QUOTA_PAID", 0) }),
  submissionsPerHour: Config.all({
    FREE: count("SUBMISSIONS_PER_HOUR_FREE", 10),
    PAID: count("SUBMISSIONS_PER_HOUR_PAID", 0),
  }),
});

const devnetBlockSeconds = Config.string("DEVNET_BLOCK_SECONDS").pipe(
  Config.withDefault("5"),
  Config.mapOrFail((text) => {
    const n = Number(text);
    return text.trim() !== "" && Number.isFinite(n) && n >= 0 && n <= 86_400
      ? Either.right(n)
      : Either.left(invalid("DEVNET_BLOCK_SECONDS", `expected seconds from 0 (off) to 86400, got "${text}"`));
  }),
);

/**
 * Default none: the spec keeps API keys out of client-side code, so browsers on other sites get no access unless
 * the operator names them. Each entry must be a bare origin (`https://app.example`), as browsers send it.
 */
const corsOrigins = Config.string("CORS_ORIGINS").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text): Either.Either<CorsOrigins, ConfigError.ConfigError> => {
    if (text.trim() === "*") return Either.right("*");
    const origins: Array<string> = [];
    for (const entry of text.split(",").map((e) => e.trim()).filter((e) => e !== "")) {
      let origin: string | undefined;
      try {
        const u = new URL(entry);
        if (["http:", "https:"].includes(u.protocol)) origin = u.origin;
      } catch { /* reported below */ }
      if (origin === undefined || origin !== entry.replace(/\/$/, "")) {
        return Either.left(
          invalid(
            "CORS_ORIGINS",
            `expected * or a comma list of origins like https://app.example, got "${entry}"`,
          ),
        );
      }
      origins.push(origin);
    }
    return Either.right(origins);
  }),
);

/** A whole number from `min` to `max`, `fallback` when unset; the error names the range in `unit`. */
const wholeNumberIn = (name: string, fallback: number, min: number, max: number, unit: string) =>
  Config.string(name).pipe(
    Config.withDefault(String(fallback)),
    Config.mapOrFail((text) => {
      const n = Number(text);
      return /^\d+$/.test(text) && n >= min && n <= max
        ? Either.right(n)
        : Either.left(invalid(name, `expected ${unit} from ${min} to ${max}, got "${text}"`));
    }),
  );

/**
 * 1 MiB: far above any real request (a 16 KiB transaction is 32 KiB of hex; a generated GraphQL query a few KiB),
 * and small enough that a flood of refused bodies costs little memory.
 */
const maxBodyBytes = wholeNumberIn("MAX_BODY_BYTES", 1 << 20, 65_536, 64 * 1024 * 1024, "bytes");

/**
 * 10 s: a GraphQL statement that needs longer walks far more rows than an indexed query ever does; operators
 * with patient users (or tests that need a short limit) set it.
 */
const graphqlTimeoutMs = wholeNumberIn("GRAPHQL_TIMEOUT_MS", 10_000, 100, 600_000, "milliseconds");

/** Seconds: a database, Redis or an Ogmios upstream that is not there yet is waited for this long. */
const startupTimeoutSeconds = Config.string("STARTUP_TIMEOUT").pipe(
  Config.withDefault("120"),
  Config.mapOrFail((text) => {
    const n = Number(text);
    return text.trim() !== "" && Number.isFinite(n) && n > 0 && n <= 86_400
      ? Either.right(n)
      : Either.left(invalid("STARTUP_TIMEOUT", `expected seconds from 1 to 86400, got "${text}"`));
  }),
);

/** A bearer token for /metrics: long enough not to be guessed, and sendable in a header as it is. */
const metricsToken = Config.string("METRICS_TOKEN").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) =>
    text === ""
      ? Either.right(Option.none())
      : /^[\x21-\x7e]{16,256}$/.test(text)
      ? Either.right(Option.some(Redacted.make(text)))
      : Either.left(invalid("METRICS_TOKEN", "expected 16 to 256 printable characters without spaces"))
  ),
);

const metricsPort = Config.string("METRICS_PORT").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) => {
    if (text.trim() === "") return Either.right(Option.none());
    const n = Number(text);
    return /^\d+$/.test(text) && n <= 65535
      ? Either.right(Option.some(n))
      : Either.left(invalid("METRICS_PORT", `expected an integer from 0 to 65535, got "${text}"`));
  }),
);

/** An origin and optional path prefix people reach the service at, without a trailing slash. */
const publicUrl = Config.map(
  optionalUrl("PUBLIC_URL", ["http:", "https:"]),
  Option.map((text) => text.replace(/\/+$/, "")),
);

const cookieSecure = Config.string("COOKIE_SECURE").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) =>
    ["", "true", "false"].includes(text.trim().toLowerCase())
      ? Either.right(text.trim().toLowerCase())
      : Either.left(invalid("COOKIE_SECURE", `expected true or false, got "${text}"`))
  ),
);

const trustedProxies = Config.string("TRUSTED_PROXIES").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) => {
    const parsed = parseTrustedProxies(text);
    return "error" in parsed
      ? Either.left(invalid("TRUSTED_PROXIES", parsed.error))
      : Either.right(parsed.proxies);
  }),
);

/** Strict-Transport-Security's max-age: a year by default (what browsers' preload lists ask for), 0 = off. */
const hstsMaxAge = Config.string("HSTS_MAX_AGE").pipe(
  Config.withDefault("31536000"),
  Config.mapOrFail((text) =>
    /^\d{1,10}$/.test(text.trim()) ? Either.right(Number(text.trim())) : Either.left(
      invalid("HSTS_MAX_AGE", `expected a whole number of seconds (0 = no HSTS), got "${text}"`),
    )
  ),
);

/**
 * Off where connections are not sessions of their own (a PgBouncer in transaction mode before 1.21, or without
 * `max_prepared_statements`): a prepared statement would then meet a server session that never saw it.
 */
const chainPreparedStatements = Config.string("CHAIN_PREPARED_STATEMENTS").pipe(
  Config.withDefault("true"),
  Config.mapOrFail((text) =>
    ["true", "false"].includes(text.trim().toLowerCase())
      ? Either.right(text.trim().toLowerCase() === "true")
      : Either.left(invalid("CHAIN_PREPARED_STATEMENTS", `expected true or false, got "${text}"`))
  ),
);

const mailFrom = Config.string("MAIL_FROM").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) =>
    /^[^\r\n]{0,254}$/.test(text)
      ? Either.right(text.trim())
      : Either.left(invalid("MAIL_FROM", "expected one line of at most 254 characters"))
  ),
);

const settings = Config.all({
  port,
  host,
  dataDir,
  networks: Config.all({ mainnet: networkConfig("MAINNET"), preprod: networkConfig("PREPROD") }),
  serviceDatabaseUrl: postgresUrl("SERVICE_DATABASE_URL"),
  replicaMaxLagBlocks: wholeNumberIn("REPLICA_MAX_LAG_BLOCKS", 5, 0, 100_000, "blocks"),
  chainPreparedStatements,
  redisUrl: secretUrl("REDIS_URL", ["redis:", "rediss:"]),
  logLevel,
  apiKeyPrefix,
  limits,
  freeKeysPerAccount: wholeNumberIn("FREE_KEYS_PER_ACCOUNT", 10, 1, 1000, "keys"),
  devnetBlockSeconds,
  corsOrigins,
  maxBodyBytes,
  authFailuresPer10s: count("AUTH_FAILURES_PER_10S", 20),
  trustedProxies,
  startupTimeoutSeconds,
  graphqlTimeoutMs,
  memoryLogSeconds: count("MEMORY_LOG_SECONDS", 0),
  metricsToken,
  metricsPort,
  smtpUrl: secretUrl("SMTP_URL", ["smtp:", "smtps:"]),
  mailFrom,
  publicUrl,
  cookieSecure,
  hstsMaxAge,
  priceUrl: optionalUrl("PRICE_URL", ["http:", "https:"]),
  poolId: Config.string("POOL_ID").pipe(
    Config.withDefault(""),
    Config.mapOrFail((text) =>
      text.trim() === ""
        ? Either.right(Option.none())
        : /^pool(_test)?1[02-9ac-hj-np-z]{50,60}$/.test(text)
        ? Either.right(Option.some(text))
        : Either.left(invalid("POOL_ID", `expected a bech32 pool id (pool1...), got "${text}"`))
    ),
  ),
});

export const appConfig: Config.Config<AppConfigShape> = Config.mapOrFail(
  settings,
  (c) =>
    Option.isSome(c.metricsPort) && c.metricsPort.value === c.port && c.port !== 0
      ? Either.left(invalid("METRICS_PORT", `must differ from PORT (${c.port}): it is a listener of its own`))
      : Either.right({
        ...c,
        mailFrom: c.mailFrom === ""
          ? `cardano-data-service <noreply@${mailDomain(c.publicUrl, c.host)}>`
          : c.mailFrom,
        cookieSecure: c.cookieSecure === "true" ||
          (c.cookieSecure === "" && Option.exists(c.publicUrl, (u) => u.startsWith("https://"))),
      }),
);

/** The domain of the default From address: PUBLIC_URL's host, else `localhost`. */
const mailDomain = (url: Option.Option<string>, host: string) =>
  Option.match(url, {
    onNone: () => (/^[a-z0-9.-]+\.[a-z]{2,}$/i.test(host) ? host : "localhost"),
    onSome: (u) => new URL(u).hostname,
  });

/** Where people reach the service: PUBLIC_URL, else this process's own address. */
export const publicBaseUrl = (config: AppConfigShape): string =>
  Option.getOrElse(config.publicUrl, () => {
    const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
    return `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`;
  });

/** Renders a ConfigError as one line per failing variable: `PORT: expected an integer ...`. */
export const describeConfigError = (error: ConfigError.ConfigError): string => {
  // Effect may prefix the variable name to a path that already holds it: name it once
  const line = (path: ReadonlyArray<string>, message: string) =>
    `${path.filter((p, i) => p !== path[i - 1]).join("_")}: ${message}`;
  return ConfigError.reduceWithContext(error, undefined, {
    andCase: (_, l: Array<string>, r: Array<string>) => [...l, ...r],
    orCase: (_, l: Array<string>, r: Array<string>) => [...l, ...r],
    invalidDataCase: (_, path, message) => [line(path, message)],
    missingDataCase: (_, path, message) => [line(path, message)],
    sourceUnavailableCase: (_, path, message) => [line(path, message)],
    unsupportedCase: (_, path, message) => [line(path, message)],
  }).join("; ");
};

export class InvalidConfiguration extends Error {
  override readonly name = "InvalidConfiguration";
}

/** The config from the environment; fails with `InvalidConfiguration` carrying the one-line reason. */
export const AppConfigFromEnv: Layer.Layer<AppConfig, InvalidConfiguration> = Layer.effect(
  AppConfig,
  Effect.mapError(
    appConfig,
    (e) => new InvalidConfiguration(`Invalid configuration: ${describeConfigError(e)}`),
  ),
);

/** A URL with any password replaced, safe to log. */
export const redactUrl = (secret: Redacted.Redacted<string>): string => {
  try {
    const u = new URL(Redacted.value(secret));
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "<unparseable URL>";
  }
};
