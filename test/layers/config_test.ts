/** Configuration: defaults start the embedded mode with no environment; each bad value names its variable. */
import assert from "node:assert/strict";
import { ConfigProvider, Effect, LogLevel, Option, Redacted } from "effect";
import { appConfig, describeConfigError } from "@layers/config.ts";
import { cleanEnv } from "../support/clean_env.ts";

const load = (env: Record<string, string>) =>
  Effect.runPromise(
    Effect.either(Effect.withConfigProvider(appConfig, ConfigProvider.fromMap(new Map(Object.entries(env))))),
  );

Deno.test("config defaults need no environment", async () => {
  const result = await load({});
  assert.equal(result._tag, "Right");
  if (result._tag !== "Right") return;
  const c = result.right;
  assert.equal(c.port, 3000);
  assert.equal(c.host, "127.0.0.1");
  assert.equal(c.dataDir, "./data");
  assert.equal(c.logLevel, LogLevel.Info);
  assert.deepEqual(c.networks.mainnet.databaseUrls, []);
  assert.equal(c.replicaMaxLagBlocks, 5);
  assert.ok(Option.isNone(c.networks.preprod.ogmiosUrl));
  assert.ok(Option.isNone(c.serviceDatabaseUrl));
  assert.ok(Option.isNone(c.redisUrl));
  assert.equal(c.devnetBlockSeconds, 5);
  assert.equal(c.startupTimeoutSeconds, 120);
  assert.equal(c.maxBodyBytes, 1024 * 1024);
  assert.equal(c.authFailuresPer10s, 20);
  assert.equal(c.memoryLogSeconds, 0);
  assert.deepEqual(c.trustedProxies, []);
});

Deno.test("TRUSTED_PROXIES: a comma list of addresses and networks", async () => {
  const result = await load({ TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8, fd00::/8" });
  assert.equal(result._tag === "Right" && result.right.trustedProxies.length, 3);
});

Deno.test("MAX_BODY_BYTES and AUTH_FAILURES_PER_10S are read as whole numbers", async () => {
  const result = await load({ MAX_BODY_BYTES: "65536", AUTH_FAILURES_PER_10S: "0" });
  assert.equal(result._tag, "Right");
  if (result._tag !== "Right") return;
  assert.equal(result.right.maxBodyBytes, 65536);
  assert.equal(result.right.authFailuresPer10s, 0);
});

Deno.test("MEMORY_LOG_SECONDS: whole seconds between memory log lines", async () => {
  const result = await load({ MEMORY_LOG_SECONDS: "10" });
  assert.equal(result._tag === "Right" && result.right.memoryLogSeconds, 10);
  assert.equal((await load({ MEMORY_LOG_SECONDS: "ten" }))._tag, "Left");
});

Deno.test("METRICS_TOKEN and METRICS_PORT: off unless set, the token redacted", async () => {
  const off = await load({ METRICS_TOKEN: "", METRICS_PORT: "" });
  assert.ok(
    off._tag === "Right" && Option.isNone(off.right.metricsToken) && Option.isNone(off.right.metricsPort),
  );
  const on = await load({ METRICS_TOKEN: "0123456789abcdef-scraper", METRICS_PORT: "9464" });
  assert.equal(on._tag, "Right");
  if (on._tag !== "Right") return;
  const token = Option.getOrThrow(on.right.metricsToken);
  assert.equal(Redacted.value(token), "0123456789abcdef-scraper");
  assert.ok(!String(token).includes("scraper"));
  assert.equal(Option.getOrThrow(on.right.metricsPort), 9464);
});

Deno.test("DEVNET_BLOCK_SECONDS: seconds between devnet blocks, 0 = no devnet", async () => {
  for (const [text, seconds] of [["0", 0], ["1", 1], ["0.5", 0.5], ["20", 20]] as const) {
    const result = await load({ DEVNET_BLOCK_SECONDS: text });
    assert.equal(result._tag === "Right" && result.right.devnetBlockSeconds, seconds);
  }
});

Deno.test("config treats empty URL variables as unset", async () => {
  const result = await load({ REDIS_URL: "", MAINNET_DATABASE_URL: " ", PREPROD_OGMIOS_URL: "" });
  assert.equal(result._tag, "Right");
  if (result._tag !== "Right") return;
  assert.ok(Option.isNone(result.right.redisUrl));
  assert.deepEqual(result.right.networks.mainnet.databaseUrls, []);
  assert.ok(Option.isNone(result.right.networks.preprod.ogmiosUrl));
});

Deno.test("config reads every variable and keeps secrets redacted", async () => {
  const result = await load({
    PORT: "8080",
    HOST: "0.0.0.0",
    DATA_DIR: "/tmp/x",
    MAINNET_DATABASE_URL: "postgres://dbsync:secret@db:5432/mainnet",
    PREPROD_DATABASE_URL: "postgresql://dbsync@db/preprod",
    SERVICE_DATABASE_URL: "postgres://svc:pw@db/svc",
    MAINNET_OGMIOS_URL: "ws://ogmios:1337",
    PREPROD_OGMIOS_URL: "wss://ogmios.example:443",
    REDIS_URL: "redis://:pw@cache:6379",
    LOG_LEVEL: "debug",
  });
  assert.equal(result._tag, "Right");
  if (result._tag !== "Right") return;
  const c = result.right;
  assert.equal(c.port, 8080);
  assert.equal(c.logLevel, LogLevel.Debug);
  const [url] = c.networks.mainnet.databaseUrls;
  assert.ok(url);
  assert.equal(Redacted.value(url), "postgres://dbsync:secret@db:5432/mainnet");
  assert.ok(!String(url).includes("secret"), "a redacted URL does not print its value");
  assert.equal(Option.getOrThrow(c.networks.preprod.ogmiosUrl), "wss://ogmios.example:443");
});

Deno.test("SMTP_URL, PUBLIC_URL, COOKIE_SECURE, MAIL_FROM, HSTS_MAX_AGE, CHAIN_PREPARED_STATEMENTS: defaults; Secure follows https", async () => {
  const off = await load({});
  assert.ok(off._tag === "Right");
  if (off._tag !== "Right") return;
  assert.ok(Option.isNone(off.right.smtpUrl) && Option.isNone(off.right.publicUrl));
  assert.equal(off.right.cookieSecure, false);
  assert.equal(off.right.mailFrom, "cardano-data-service <noreply@localhost>");
  assert.equal(off.right.hstsMaxAge, 31_536_000);
  assert.equal(off.right.chainPreparedStatements, true);
  const unprepared = await load({ CHAIN_PREPARED_STATEMENTS: "false" });
  assert.equal(unprepared._tag === "Right" && unprepared.right.chainPreparedStatements, false);
  const noHsts = await load({ HSTS_MAX_AGE: "0" });
  assert.equal(noHsts._tag === "Right" && noHsts.right.hstsMaxAge, 0);
  const on = await load({
    SMTP_URL: "smtps://user:secret@mail.example:465",
    PUBLIC_URL: "https://data.example/",
  });
  assert.ok(on._tag === "Right");
  if (on._tag !== "Right") return;
  assert.equal(Redacted.value(Option.getOrThrow(on.right.smtpUrl)), "smtps://user:secret@mail.example:465");
  assert.ok(!String(Option.getOrThrow(on.right.smtpUrl)).includes("secret"));
  assert.equal(Option.getOrThrow(on.right.publicUrl), "https://data.example");
  assert.equal(on.right.cookieSecure, true);
  assert.equal(on.right.mailFrom, "cardano-data-service <noreply@data.example>");
  const forced = await load({ PUBLIC_URL: "https://data.example", COOKIE_SECURE: "false" });
  assert.equal(forced._tag === "Right" && forced.right.cookieSecure, false);
  const behindProxy = await load({ COOKIE_SECURE: "true", MAIL_FROM: "Ops <ops@example.org>" });
  assert.ok(behindProxy._tag === "Right" && behindProxy.right.cookieSecure);
  assert.equal(behindProxy._tag === "Right" && behindProxy.right.mailFrom, "Ops <ops@example.org>");
});

const bad: ReadonlyArray<[string, string, RegExp]> = [
  ["SMTP_URL", "http://mail", /^SMTP_URL: expected a smtp: or smtps:\/\/ URL/],
  ["PUBLIC_URL", "ftp://data.example", /^PUBLIC_URL: /],
  ["COOKIE_SECURE", "maybe", /^COOKIE_SECURE: expected true or false/],
  ["CHAIN_PREPARED_STATEMENTS", "no", /^CHAIN_PREPARED_STATEMENTS: expected true or false, got "no"$/],
  [
    "HSTS_MAX_AGE",
    "a year",
    /^HSTS_MAX_AGE: expected a whole number of seconds \(0 = no HSTS\), got "a year"$/,
  ],
  ["PORT", "abc", /^PORT: expected an integer from 0 to 65535, got "abc"$/],
  ["PORT", "70000", /^PORT: /],
  ["HOST", "bad host!", /^HOST: /],
  ["DATA_DIR", " ", /^DATA_DIR: must not be empty$/],
  [
    "MAINNET_DATABASE_URL",
    "mysql://x/y",
    /^MAINNET_DATABASE_URL: expected a postgres: or postgresql:\/\/ URL/,
  ],
  ["PREPROD_DATABASE_URL", "not a url", /^PREPROD_DATABASE_URL: expected a URL/],
  ["SERVICE_DATABASE_URL", "http://x", /^SERVICE_DATABASE_URL: /],
  ["MAINNET_OGMIOS_URL", "http://ogmios:1337", /^MAINNET_OGMIOS_URL: expected a ws: or wss:\/\/ URL/],
  ["PREPROD_OGMIOS_URL", "::", /^PREPROD_OGMIOS_URL: /],
  ["REDIS_URL", "http://cache", /^REDIS_URL: /],
  ["LOG_LEVEL", "loud", /^LOG_LEVEL: expected one of trace, debug, info/],
  [
    "DEVNET_BLOCK_SECONDS",
    "-1",
    /^DEVNET_BLOCK_SECONDS: expected seconds from 0 \(off\) to 86400, got "-1"$/,
  ],
  ["DEVNET_BLOCK_SECONDS", "fast", /^DEVNET_BLOCK_SECONDS: /],
  ["DEVNET_BLOCK_SECONDS", " ", /^DEVNET_BLOCK_SECONDS: /],
  ["MAX_BODY_BYTES", "1k", /^MAX_BODY_BYTES: expected bytes from 65536 to 67108864, got "1k"$/],
  ["MAX_BODY_BYTES", "100", /^MAX_BODY_BYTES: /],
  ["AUTH_FAILURES_PER_10S", "-1", /^AUTH_FAILURES_PER_10S: expected a whole number/],
  ["STARTUP_TIMEOUT", "0", /^STARTUP_TIMEOUT: expected seconds from 1 to 86400, got "0"$/],
  ["STARTUP_TIMEOUT", "soon", /^STARTUP_TIMEOUT: /],
  ["METRICS_TOKEN", "short", /^METRICS_TOKEN: expected 16 to 256 printable characters without spaces$/],
  ["METRICS_TOKEN", "a token with spaces in it", /^METRICS_TOKEN: /],
  ["METRICS_PORT", "x", /^METRICS_PORT: expected an integer from 0 to 65535, got "x"$/],
  ["METRICS_PORT", "3000", /^METRICS_PORT: must differ from PORT \(3000\)/],
  ["TRUSTED_PROXIES", "10.0.0.1, haproxy", /^TRUSTED_PROXIES: expected a comma list of IP .*got "haproxy"$/],
  ["TRUSTED_PROXIES", "10.0.0.0/33", /^TRUSTED_PROXIES: .*got "10.0.0.0\/33"$/],
];

for (const [name, value, expected] of bad) {
  Deno.test(`config rejects ${name}=${JSON.stringify(value)} with one line naming it`, async () => {
    const result = await load({ [name]: value });
    assert.equal(result._tag, "Left");
    if (result._tag !== "Left") return;
    const line = describeConfigError(result.left);
    assert.match(line, expected);
    assert.ok(!line.includes("\n"));
  });
}

Deno.test("the service refuses a bad setting at start with one clear line", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "src/main.ts"],
    // only this setting: another test file in this process may set service variables for a moment
    clearEnv: true,
    env: { ...cleanEnv(), PORT: "not-a-port", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 1);
  const stderr = new TextDecoder().decode(out.stderr).trim();
  assert.equal(stderr, 'Invalid configuration: PORT: expected an integer from 0 to 65535, got "not-a-port"');
});

Deno.test("<NETWORK>_DATABASE_URL: a comma-separated list of PostgreSQL URLs (replicas), REPLICA_MAX_LAG_BLOCKS", async () => {
  const result = await load({
    MAINNET_DATABASE_URL: "postgres://u:pw@primary/db, postgres://u:pw@replica:5433/db",
    REPLICA_MAX_LAG_BLOCKS: "20",
  });
  assert.equal(result._tag, "Right");
  if (result._tag !== "Right") return;
  assert.deepEqual(result.right.networks.mainnet.databaseUrls.map(Redacted.value), [
    "postgres://u:pw@primary/db",
    "postgres://u:pw@replica:5433/db",
  ]);
  assert.equal(result.right.replicaMaxLagBlocks, 20);
});

Deno.test("replicas are PostgreSQL only: each list entry is checked and named", async () => {
  const refused = async (env: Record<string, string>) => {
    const result = await load(env);
    assert.equal(result._tag, "Left");
    return result._tag === "Left" ? describeConfigError(result.left) : "";
  };
  assert.equal(
    await refused({ MAINNET_DATABASE_URL: "postgres://primary/db,file:///data/mainnet" }),
    "MAINNET_DATABASE_URL: entry 2 of 2: expected a postgres: or postgresql:// URL, got file:// (replicas are " +
      "PostgreSQL databases: the embedded database is used when the variable is unset)",
  );
  assert.match(
    await refused({ PREPROD_DATABASE_URL: "postgres://a/db,,postgres://b/db" }),
    /^PREPROD_DATABASE_URL: entry 2 of 3: empty/,
  );
  assert.match(
    await refused({ MAINNET_DATABASE_URL: "postgres://a/db,postgres://a/db" }),
    /^MAINNET_DATABASE_URL: entry 2 of 2: the same URL twice/,
  );
  assert.match(
    await refused({ MAINNET_DATABASE_URL: "postgres://a/db,nonsense" }),
    /entry 2 of 2: expected a URL/,
  );
  assert.match(
    await refused({ REPLICA_MAX_LAG_BLOCKS: "-1" }),
    /^REPLICA_MAX_LAG_BLOCKS: expected blocks from 0/,
  );
  assert.match(await refused({ REPLICA_MAX_LAG_BLOCKS: "five" }), /^REPLICA_MAX_LAG_BLOCKS: /);
});
