/**
 * Seeds both demo chains (scale 1) into PGlite data directories under the given folder, once per test run
 * (`scripts/test.ts`), with each network's SeedResult beside it in `<network>.json`. Test files copy it
 * (test/support/template.ts) instead of seeding again.
 *
 *   deno run -A test/support/seed_template.ts DIR
 */
import { Effect } from "effect";
import { join } from "node:path";
import { seedDemoChainPglite } from "@src/demo_chain/seed.ts";
import { openPglite } from "@layers/sql_pglite.ts";
import { networks } from "@schemas/network.ts";

const dir = Deno.args[0];
if (!dir) throw new Error("usage: seed_template.ts DIR");
const started = performance.now();
await Deno.mkdir(dir, { recursive: true });
await Promise.all(networks.map(async (network) => {
  const db = await openPglite(join(dir, network));
  const seeded = await Effect.runPromise(seedDemoChainPglite(db, { network, scale: 1 }));
  await db.close();
  await Deno.writeTextFile(join(dir, `${network}.json`), JSON.stringify(seeded));
}));
console.log(`seeded the test template in ${((performance.now() - started) / 1000).toFixed(1)} s`);
