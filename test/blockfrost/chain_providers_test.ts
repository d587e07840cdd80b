/**
 * The real providers over the chain group, unchanged: Lucid Evolution's `Blockfrost` reads the protocol
 * parameters (cost models from `cost_models_raw`), Mesh's `BlockfrostProvider` (a base URL with the key in its
 * path) the parameters of the latest and of a given epoch, and a block.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { Blockfrost } from "@lucid-evolution/provider";
import type { BlockfrostProvider as MeshBlockfrost } from "@meshsdk/provider";
import { startBlockfrostFixture } from "../support/blockfrost.ts";

// Mesh's ES build imports a libsodium module its package does not ship; its CommonJS build loads
const { BlockfrostProvider } = createRequire(import.meta.url)("@meshsdk/provider") as {
  BlockfrostProvider: typeof MeshBlockfrost;
};

Deno.test({
  name: "blockfrost: providers read the chain group",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startBlockfrostFixture("bf_chain_providers");
    try {
      for (const network of ["mainnet", "preprod"] as const) {
        const params = (await f.bf("/epochs/latest/parameters", network)).body;

        await t.step(`Lucid Evolution's protocol parameters on ${network}`, async () => {
          const lucid = await new Blockfrost(f.baseUrl(network), f.key).getProtocolParameters();
          assert.equal(lucid.minFeeA, params.min_fee_a);
          assert.equal(lucid.minFeeB, params.min_fee_b);
          assert.equal(lucid.coinsPerUtxoByte, BigInt(params.coins_per_utxo_size));
          assert.equal(lucid.drepDeposit, BigInt(params.drep_deposit));
          assert.equal(lucid.govActionDeposit, BigInt(params.gov_action_deposit));
          assert.equal(lucid.minFeeRefScriptCostPerByte, params.min_fee_ref_script_cost_per_byte);
          assert.deepEqual(lucid.costModels, params.cost_models_raw);
        });

        await t.step(`Mesh's protocol parameters and block on ${network}`, async () => {
          const base = `${f.service.base}/key/${f.key}${new URL(f.baseUrl(network)).pathname}`;
          const mesh = new BlockfrostProvider(base);
          const latest = await mesh.fetchProtocolParameters();
          assert.equal(latest.epoch, params.epoch);
          assert.equal(latest.minFeeA, params.min_fee_a);
          assert.equal(String(latest.coinsPerUtxoSize), params.coins_per_utxo_size);
          const first = await mesh.fetchProtocolParameters(1);
          assert.equal(first.epoch, 1);
          const tip = (await f.bf("/blocks/latest", network)).body;
          const block = await mesh.fetchBlockInfo(tip.hash);
          assert.equal(block.hash, tip.hash);
          assert.equal(block.slot, String(tip.slot));
          assert.equal(block.previousBlock, tip.previous_block);
          assert.equal(block.txCount, tip.tx_count);
        });
      }
    } finally {
      await f.close();
    }
  },
});
