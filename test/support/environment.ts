/**
 * A complete environment for running the service in tests: chain databases holding the demo chain and a service
 * database. On PGlite, copies of the run's seeded template (test/support/template.ts, ~1 s) so tests need not
 * seed on every start; with TEST_DATABASE_URL, fresh PostgreSQL databases. REDIS_URL, when set, is
 * passed through so the Redis limiter is exercised.
 */
import { Effect } from "effect";
import { join } from "node:path";
import * as Reactivity from "@effect/experimental/Reactivity";
import type { SqlClient } from "@effect/sql/SqlClient";
import { makePgliteSqlClientFrom, openPglite } from "@layers/sql_pglite.ts";
import type { Network } from "@schemas/network.ts";
import { createTestChain, type TestChain } from "./demo_chain.ts";
import { cleanEnv } from "./clean_env.ts";
import { copyTemplate } from "./template.ts";
import { createTestDatabase, type TestDatabase, testDatabaseUrl } from "./databases.ts";

export const redisUrl: string | undefined = Deno.env.get("REDIS_URL") || undefined;

export interface TestEnvironment {
  /** Environment variables for `startService` (and the keys CLI). */
  readonly env: Record<string, string>;
  /** SQL on a copy of the chain the service serves (same data), for expected values. */
  readonly chainSql: (network: Network) => Promise<SqlClient>;
  readonly close: () => Promise<void>;
}

const templateClients = new Map<Network, Promise<SqlClient>>();

/** The seeded template opened in this process (the services run on copies of it). */
const templateSql = (network: Network): Promise<SqlClient> => {
  let client = templateClients.get(network);
  if (!client) {
    client = (async () => {
      // a private copy: other test processes copy the template at the same time
      const dir = await Deno.makeTempDir({ prefix: `cds-template-${network}-` });
      globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
      await copyTemplate(dir, [network]);
      const db = await openPglite(join(dir, network));
      return Effect.runPromise(makePgliteSqlClientFrom(db).pipe(Effect.provide(Reactivity.layer)));
    })();
    templateClients.set(network, client);
  }
  return client;
};

export const createTestEnvironment = async (label: string): Promise<TestEnvironment> => {
  const dataDir = await Deno.makeTempDir({ prefix: `cds-${label}-` });
  const closers: Array<() => Promise<void>> = [() => Deno.remove(dataDir, { recursive: true })];
  let chainSqlByNetwork: Record<Network, SqlClient> | undefined;
  // the devnet off: most tests compare answers with a copy of the seeded chain, which must not move
  const env: Record<string, string> = { DATA_DIR: dataDir, DEVNET_BLOCK_SECONDS: "0" };
  if (redisUrl) env.REDIS_URL = redisUrl;
  if (testDatabaseUrl) {
    const chains: Array<TestChain> = await Promise.all([
      createTestChain(`${label}_mainnet`, "mainnet"),
      createTestChain(`${label}_preprod`, "preprod"),
    ]);
    const service: TestDatabase = await createTestDatabase(`${label}_service`);
    chainSqlByNetwork = { mainnet: chains[0]!.sql, preprod: chains[1]!.sql };
    env.MAINNET_DATABASE_URL = chains[0]!.url!;
    env.PREPROD_DATABASE_URL = chains[1]!.url!;
    env.SERVICE_DATABASE_URL = service.url!;
    closers.push(...chains.map((c) => c.close), service.close);
  } else {
    await copyTemplate(dataDir, ["mainnet", "preprod"]);
  }
  return {
    env,
    chainSql: (
      network,
    ) => (chainSqlByNetwork ? Promise.resolve(chainSqlByNetwork[network]) : templateSql(network)),
    close: async () => {
      for (const close of closers.reverse()) await close().catch(() => {});
    },
  };
};

/** Runs the keys CLI with the environment's settings; returns its output lines and exit code. */
export const keysCli = async (env: Record<string, string>, ...args: Array<string>) => {
  const out = await new Deno.Command(Deno.execPath(), {
    // a test environment is a new installation: the CLI may create its service database (--init)
    args: ["run", "-A", "scripts/keys.ts", ...args, "--init"],
    clearEnv: true,
    env: { ...cleanEnv(), NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b).trimEnd().split("\n");
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
};

/** Creates a key through the CLI and returns it with its id. */
export const createKey = async (env: Record<string, string>, ...args: Array<string>) => {
  const result = await keysCli(env, "create", ...args);
  if (result.code !== 0) throw new Error(`keys create failed: ${result.stderr.join("\n")}`);
  const key = result.stdout[result.stdout.length - 1]!;
  const id = Number(result.stdout[1]!.trim().split(/\s+/)[0]);
  return { key, id };
};
