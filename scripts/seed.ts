/**
 * `npm run seed -- --network mainnet|preprod --database-url URL [--scale N]`: writes the generated demo chain
 * into an empty PostgreSQL database (creating the db-sync schema first). A database holding a chain is refused.
 */
import { parseArgs } from "node:util";
import { Effect } from "effect";
import { seedDemoChainPostgres } from "@src/demo_chain/seed.ts";
import { Network } from "@schemas/network.ts";
import { Schema } from "effect";

const usage = "usage: npm run seed -- --network mainnet|preprod --database-url postgres://... [--scale N]";

const fail = (message: string): never => {
  console.error(`seed: ${message}\n${usage}`);
  Deno.exit(2);
};

const { values } = (() => {
  try {
    return parseArgs({
      args: Deno.args,
      options: {
        network: { type: "string" },
        "database-url": { type: "string" },
        scale: { type: "string", default: "1" },
      },
      strict: true,
    });
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
})();

const network = Schema.decodeUnknownOption(Network)(values.network);
if (network._tag === "None") {
  fail(`--network must be mainnet or preprod, got ${JSON.stringify(values.network)}`);
}
const url = values["database-url"] ?? fail("--database-url is required");
if (!/^postgres(ql)?:\/\//.test(url)) fail("--database-url must be a postgres:// URL");
const scale = Number(values.scale);
if (!Number.isInteger(scale) || scale < 1 || scale > 1000) fail(`--scale must be an integer from 1 to 1000`);

const started = performance.now();
// how far it is, on stderr every few seconds (a large --scale takes minutes)
let told = started;
const onProgress = (text: string) => {
  if (performance.now() - told < 3000) return;
  told = performance.now();
  console.error(`seed: ${Math.round((told - started) / 1000)} s: ${text}`);
};
const result = await Effect.runPromise(
  Effect.either(
    seedDemoChainPostgres(url, {
      network: network._tag === "Some" ? network.value : "mainnet",
      scale,
      onProgress,
    }),
  ),
);
if (result._tag === "Left") {
  console.error(`seed: ${result.left.message}`);
  Deno.exit(1);
}
const r = result.right;
const total = Object.values(r.counts).reduce((s, n) => s + n, 0);
console.log(JSON.stringify(
  {
    network: values.network,
    scale,
    tip: { blockNo: r.tipBlockNo, epoch: r.tipEpoch },
    seconds: {
      total: Math.round(performance.now() - started) / 1000,
      generateAndCopy: r.generateMs / 1000,
      indexes: r.indexMs / 1000,
    },
    rows: total,
    counts: r.counts,
  },
  null,
  2,
));
