/**
 * The embedded default opens each chain's PGlite with a read-only session (layers/chain_db.ts); the devnet writes
 * every block in a `BEGIN READ WRITE` transaction, so it works over that same client.
 */
import assert from "node:assert/strict";
import * as Reactivity from "@effect/experimental/Reactivity";
import { Effect, Exit, Scope } from "effect";
import { makePgliteSqlClientFrom, openPglite } from "@layers/sql_pglite.ts";
import { seedDemoChainPglite } from "@src/demo_chain/seed.ts";
import { makeDevnet } from "@src/devnet/devnet.ts";
import { testDatabaseUrl } from "../support/databases.ts";

Deno.test({
  name: "the devnet writes blocks through the embedded chain's read-only PGlite session",
  ignore: testDatabaseUrl !== undefined,
  fn: async () => {
    const db = await openPglite();
    const scope = Effect.runSync(Scope.make());
    const dataDir = await Deno.makeTempDir({ prefix: "devnet-ro-" });
    try {
      await Effect.runPromise(seedDemoChainPglite(db, { network: "preprod", scale: 1 }));
      const sql = await Effect.runPromise(
        makePgliteSqlClientFrom(db, { readOnly: true }).pipe(
          Scope.extend(scope),
          Effect.provide(Reactivity.layer),
        ),
      );
      const refused = await Effect.runPromise(
        Effect.either(sql`insert into meta (id, start_time, network_name, version)
        values (99, now(), 'x', 'x')`),
      );
      assert.equal(refused._tag, "Left", "the session itself is read-only");
      const devnet = await Effect.runPromise(makeDevnet(sql, { network: "preprod", dataDir }));
      assert.match(devnet.wallets[0]!.address, /^addr_test1v/);
      const block = await Effect.runPromise(devnet.produceBlock);
      const [tip] = await Effect.runPromise(sql<{ blockNo: number }>`
        select block_no as "blockNo" from block b where block_no is not null order by b.id desc limit 1`);
      assert.equal(tip!.blockNo, block.blockNo);
      const [funded] = await Effect.runPromise(sql<{ n: string }>`
        select count(*)::text as n from tx_out where address = ${devnet.wallets[0]!.address}`);
      assert.equal(funded!.n, "4");
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void));
      await db.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
