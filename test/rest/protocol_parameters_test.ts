/**
 * Protocol parameters over REST and JSON-RPC: Ogmios' shape (validated with its JSON schema), values equal to
 * db-sync's epoch_param and cost_model rows, cached for an hour.
 */
import assert from "node:assert/strict";
import { toRatio } from "@src/domain/ratio.ts";
import { startRestFixture } from "../support/rest.ts";
import { assertMatchesOgmiosSchema } from "../support/ogmios_schema.ts";

Deno.test("ratios are exact fractions of the decimals db-sync stores", () => {
  assert.equal(toRatio(0.3), "3/10");
  assert.equal(toRatio(0.0577), "577/10000");
  assert.equal(toRatio(0.0000721), "721/10000000");
  assert.equal(toRatio(7.21e-9), "721/100000000000");
  assert.equal(toRatio(0.51), "51/100");
  assert.equal(toRatio(1), "1/1");
  assert.equal(toRatio(0), "0/1");
});

Deno.test({
  name: "protocol parameters",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startRestFixture("protocol_parameters");
    try {
      const [row] = await f.query<Record<string, unknown>>(
        "mainnet",
        `select p.*, p.key_deposit::text as key_deposit_text, p.pool_deposit::text as pool_deposit_text, c.costs from epoch_param p
         join cost_model c on c.id = p.cost_model_id order by epoch_no desc limit 1`,
      );
      const rest = await f.get("/api/public/protocol-parameters");
      // the spec's two names beside Ogmios v6's (REST only)
      const { stakeKeyDeposit, poolDeposit, ...ogmios } = rest.body;

      await t.step("REST answers Ogmios' ProtocolParameters shape, cached an hour", async () => {
        assert.equal(rest.status, 200);
        assert.equal(rest.headers.get("cache-control"), "private, max-age=3600");
        await assertMatchesOgmiosSchema("cardano.json#/definitions/ProtocolParameters", ogmios);
      });

      await t.step("REST also names the spec's stakeKeyDeposit and poolDeposit, equal to Ogmios'", () => {
        assert.deepEqual(stakeKeyDeposit, { ada: { lovelace: Number(row!.key_deposit_text) } });
        assert.deepEqual(stakeKeyDeposit, ogmios.stakeCredentialDeposit);
        assert.deepEqual(poolDeposit, { ada: { lovelace: Number(row!.pool_deposit_text) } });
        assert.deepEqual(poolDeposit, ogmios.stakePoolDeposit);
      });

      await t.step("values are db-sync's", () => {
        const p = rest.body;
        assert.equal(p.minFeeCoefficient, row!.min_fee_a);
        assert.deepEqual(p.minFeeConstant, { ada: { lovelace: row!.min_fee_b } });
        assert.deepEqual(p.maxTransactionSize, { bytes: row!.max_tx_size });
        assert.deepEqual(p.stakeCredentialDeposit, { ada: { lovelace: Number(row!.key_deposit_text) } });
        assert.equal(p.desiredNumberOfStakePools, row!.optimal_pool_count);
        assert.equal(p.stakePoolPledgeInfluence, "3/10");
        assert.deepEqual(p.scriptExecutionPrices, { memory: "577/10000", cpu: "721/10000000" });
        assert.deepEqual(p.version, { major: row!.protocol_major, minor: row!.protocol_minor });
        const costs = row!.costs as Record<string, Array<number>>;
        assert.deepEqual(p.plutusCostModels["plutus:v1"], costs.PlutusV1);
        assert.deepEqual(p.plutusCostModels["plutus:v3"], costs.PlutusV3);
        assert.equal(p.plutusCostModels["plutus:v3"]?.length, 297);
      });

      await t.step("JSON-RPC queryLedgerState/protocolParameters answers the same object", async () => {
        const { body: reply } = await f.rpc("queryLedgerState/protocolParameters");
        await assertMatchesOgmiosSchema(
          "ogmios.json#/properties/QueryLedgerStateProtocolParametersResponse",
          reply,
        );
        // Ogmios v6's object exactly: without the spec's two extra names
        assert.deepEqual(reply.result, ogmios);
      });

      await t.step("preprod has its own, and a bad network is a 400", async () => {
        assert.equal((await f.get("/api/public/protocol-parameters?network=preprod")).status, 200);
        const bad = await f.get("/api/public/protocol-parameters?network=sanchonet");
        assert.deepEqual(bad.body, {
          error: "Bad Request",
          message: "Invalid network: must be mainnet or preprod",
        });
      });
    } finally {
      await f.close();
    }
  },
});
