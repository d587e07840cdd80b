/**
 * The service's variables are known from layers/config.ts itself (layers/config_variables.ts), and the tests run
 * without them: a PORT, HOST or PUBLIC_URL in the shell that runs `npm test` reaches neither the tests nor the
 * services and CLIs they start (test/support/clean_env.ts), while TEST_DATABASE_URL and REDIS_URL still choose
 * the backends.
 */
import assert from "node:assert/strict";
import { configVariables } from "@layers/config_variables.ts";
import { backendVariables, cleanEnv, removedVariables } from "../support/clean_env.ts";
import { keysCli } from "../support/environment.ts";

/** Every variable name config.ts spells out: `Config.string("PORT")`, `count("RATE_LIMIT_FREE", …)`, and
 * `${prefix}_DATABASE_URL` for each `networkConfig("MAINNET")`. */
const namesInConfigSource = async (): Promise<Set<string>> => {
  const source = await Deno.readTextFile(new URL("../../layers/config.ts", import.meta.url));
  const prefixes = [...source.matchAll(/networkConfig\("([A-Z]+)"\)/g)].map((m) => m[1]!);
  const literal = [...source.matchAll(/\(\s*"([A-Z][A-Z0-9_]*)"/g)].map((m) => m[1]!)
    .filter((name) => !prefixes.includes(name));
  const templated = [...source.matchAll(/`\$\{prefix\}_([A-Z0-9_]+)`/g)]
    .flatMap((m) => prefixes.map((prefix) => `${prefix}_${m[1]}`));
  return new Set([...literal, ...templated]);
};

Deno.test("configVariables lists every variable layers/config.ts reads, and only those", async () => {
  const listed = configVariables();
  assert.deepEqual([...await namesInConfigSource()].sort(), [...listed]);
  for (
    const name of ["PORT", "HOST", "DATA_DIR", "PUBLIC_URL", "MAINNET_DATABASE_URL", "REDIS_URL", "SMTP_URL"]
  ) {
    assert.ok(listed.includes(name), name);
  }
});

Deno.test("cleanEnv drops the service's and the scripts' variables and keeps the rest", () => {
  const kept = {
    PATH: "/usr/bin",
    HOME: "/home/x",
    TEST_DATABASE_URL: "postgres://x@localhost/postgres",
    REDIS_URL: "redis://localhost",
  };
  const dropped = {
    PORT: "4321",
    HOST: "0.0.0.0",
    PUBLIC_URL: "https://x.example",
    MAINNET_DATABASE_URL: "postgres://y@localhost/mainnet",
    LOG_LEVEL: "debug",
    SERVICE_URL: "http://elsewhere",
  };
  assert.deepEqual(cleanEnv({ ...kept, ...dropped }), kept);
  assert.deepEqual(backendVariables, ["REDIS_URL"]);
});

Deno.test("the tests run without the service's variables (scripts/test.ts removes them)", () => {
  const present = removedVariables.filter((name) => Deno.env.get(name) !== undefined);
  assert.deepEqual(present, [], `set in the test environment: ${present.join(", ")}`);
});

Deno.test("a CLI started by a test helper gets no service variable from the test's own environment", async () => {
  const leaked = { PORT: "not-a-port", API_KEY_PREFIX: "leaked!" };
  const before = Object.keys(leaked).map((name) => [name, Deno.env.get(name)] as const);
  for (const [name, value] of Object.entries(leaked)) Deno.env.set(name, value);
  try {
    // nothing listens on port 1: the CLI gets past its configuration (which the leaked values would break)
    // and fails at once on the connection
    const out = await keysCli({ SERVICE_DATABASE_URL: "postgres://postgres@127.0.0.1:1/postgres" }, "list");
    assert.doesNotMatch(out.stderr.join("\n"), /invalid configuration/);
    assert.equal(out.code, 1, out.stderr.join("\n"));
    assert.match(out.stderr.join("\n"), /ECONNREFUSED|connect/i);
  } finally {
    for (const [name, value] of before) {
      value === undefined ? Deno.env.delete(name) : Deno.env.set(name, value);
    }
  }
});
