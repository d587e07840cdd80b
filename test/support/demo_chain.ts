/**
 * A test database holding the demo chain (scale 1): a copy of the run's seeded PGlite template by default
 * (test/support/template.ts), a fresh PostgreSQL database seeded for the file when `TEST_DATABASE_URL` is set;
 * both backends are seeded by the same code the service and `npm run seed` use.
 */
import * as Reactivity from "@effect/experimental/Reactivity";
import { Effect, Exit, Scope } from "effect";
import type { Network } from "@schemas/network.ts";
import { join } from "node:path";
import { seedDemoChainPostgres, type SeedResult } from "@src/demo_chain/seed.ts";
import { makePgliteSqlClientFrom, openPglite } from "@layers/sql_pglite.ts";
import { createTestDatabase, type TestDatabase } from "./databases.ts";
import { copyTemplate, templateSeedResult } from "./template.ts";

export interface TestChain extends TestDatabase {
  readonly seeded: SeedResult;
}

export const createTestChain = async (label: string, network: Network = "mainnet"): Promise<TestChain> => {
  const database = await createTestDatabase(label);
  if (database.url) {
    const seeded = await Effect.runPromise(seedDemoChainPostgres(database.url, { network, scale: 1 }));
    return { ...database, seeded };
  }
  // PGlite: a copy of the run's seeded template, queried through the same SqlClient the service uses
  await database.close();
  const dir = await Deno.makeTempDir({ prefix: `cds-chain-${label}-` });
  await copyTemplate(dir, [network]);
  const db = await openPglite(join(dir, network));
  const seeded = await templateSeedResult(network);
  const scope = Effect.runSync(Scope.make());
  const sql = await Effect.runPromise(
    makePgliteSqlClientFrom(db).pipe(Scope.extend(scope), Effect.provide(Reactivity.layer)),
  );
  return {
    sql,
    url: undefined,
    backend: "pglite",
    seeded,
    close: async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void));
      await db.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
};
