/** The demo chain is the same bytes on every run and machine, and each network gets its own chain. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { CopySink } from "@src/demo_chain/copy_sink.ts";
import { ChainGenerator, defineTables } from "@src/demo_chain/generate.ts";
import { demoNetworks } from "@src/demo_chain/network_params.ts";
import type { Network } from "@schemas/network.ts";

const digest = async (network: Network): Promise<string> => {
  const hash = createHash("sha256");
  const sink = new CopySink({
    copy: (table, columns, text) => {
      hash.update(`${table}(${columns.join(",")})\n${text}`);
      return Promise.resolve();
    },
  });
  defineTables(sink);
  await new ChainGenerator(sink, demoNetworks[network], { scale: 1, onBlock: () => sink.flushFull() }).run();
  await sink.flushAll();
  return hash.digest("hex");
};

Deno.test("the demo chain generator is deterministic, per network", async () => {
  const first = await digest("mainnet");
  assert.equal(await digest("mainnet"), first);
  assert.notEqual(await digest("preprod"), first);
});
