/**
 * A test database holding the demo chain (scale 1): PGlite in memory by default, a fresh PostgreSQL database when
 * `TEST_DATABASE_URL` is set. Seeded once per test file; both backends are seeded by the same code the service
 * and `npm run seed` use.
 */
import * as Reactivity from "@effect/experimental/Reactivity";
import { Effect, Exit, Scope } from "effect";
import type { Network } from "@schemas/network.ts";
import { seedDemoChainPglite, seedDemoChainPostgres, type SeedResult } from "@src/demo_chain/seed.ts";
import { makePgliteSqlClientFrom, openPglite } from "@layers/sql_pglite.ts";
import { createTestDatabase, type TestDatabase } from "./databases.ts";

export interface TestChain extends TestDatabase {
  readonly seeded: SeedResult;
}

export const createTestChain = async (label: string, network: Network = "mainnet"): Promise<TestChain> => {
  const database = await createTestDatabase(label);
  if (database.url) {
    const seeded = await Effect.runPromise(seedDemoChainPostgres(database.url, { network, scale: 1 }));
    return { ...database, seeded };
  }
  // PGlite: seed through the PGlite handle itself, then query it through the same SqlClient the service uses
  await database.close();
  const db = await openPglite();
  const seeded = await Effect.runPromise(seedDemoChainPglite(db, { network, scale: 1 }));
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
    },
  };
};
