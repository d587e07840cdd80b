/**
 * The official @cardano-ogmios/client's ledger-state client over WebSocket against every query served from
 * db-sync (each answer equal to the same query over raw HTTP, which the per-method tests check against db-sync),
 * and the clear error for Ogmios queries the chain database cannot answer.
 */
import assert from "node:assert/strict";
import { createInteractionContext, createLedgerStateQueryClient } from "@cardano-ogmios/client";
import { startRestFixture } from "../support/rest.ts";

/** Every number (bigint or not) as a string, to compare the client's json-bigint values with plain JSON ones. */
const stringsForNumbers = (v: unknown) =>
  JSON.parse(
    JSON.stringify(v, (_k, x) => typeof x === "bigint" ? x.toString() : x),
    (_k, x) => typeof x === "number" ? String(x) : x,
  );

Deno.test({
  name: "the official ledger-state client against every query served from db-sync",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const f = await startRestFixture("ledgerclient");
    const ws = `${f.service.base.replace("http", "ws")}/v1/ogmios?apikey=${f.key}`;
    const context = await createInteractionContext(() => {}, () => {}, {
      connection: { address: { http: `${f.service.base}/v1/ogmios`, webSocket: ws } },
    });
    const client = await createLedgerStateQueryClient(context);
    const raw = async (method: string, params?: unknown) => (await f.rpc(method, params)).body.result;
    try {
      const [address] = await f.query<{ address: string }>(
        "mainnet",
        `select o.address from tx_out o join ma_tx_out m on m.tx_out_id = o.id
         where not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index) limit 1`,
      );
      const [pool] = await f.query<{ view: string }>(
        "mainnet",
        `select p.view from pool_hash p join pool_update u on u.hash_id = p.id
         where not exists (select 1 from pool_retire r where r.hash_id = p.id) limit 1`,
      );
      const [account] = await f.query<{ cred: string }>(
        "mainnet",
        `select encode(substring(s.hash_raw from 2), 'hex') as cred from stake_address s
         join delegation d on d.addr_id = s.id limit 1`,
      );
      const cases: Array<[string, () => Promise<unknown>, string, unknown?]> = [
        ["protocolParameters", () => client.protocolParameters(), "queryLedgerState/protocolParameters"],
        ["eraSummaries", () => client.eraSummaries(), "queryLedgerState/eraSummaries"],
        ["eraStart", () => client.eraStart(), "queryLedgerState/eraStart"],
        [
          "liveStakeDistribution",
          () => client.liveStakeDistribution(),
          "queryLedgerState/liveStakeDistribution",
        ],
        [
          "utxo by address",
          () => client.utxo({ addresses: [address!.address] }),
          "queryLedgerState/utxo",
          { addresses: [address!.address] },
        ],
        [
          "stakePools with stake",
          () => client.stakePools([{ id: pool!.view }], true),
          "queryLedgerState/stakePools",
          { stakePools: [{ id: pool!.view }], includeStake: true },
        ],
        ["all stakePools", () => client.stakePools(), "queryLedgerState/stakePools"],
        [
          "rewardAccountSummaries",
          () => client.rewardAccountSummaries({ keys: [account!.cred] }),
          "queryLedgerState/rewardAccountSummaries",
          { keys: [account!.cred] },
        ],
      ];
      for (const [name, call, method, params] of cases) {
        await t.step(name, async () => {
          const viaClient = await call();
          const viaHttp = await raw(method, params);
          assert.ok(viaHttp !== undefined, `${method} answered over HTTP`);
          assert.deepEqual(stringsForNumbers(viaClient), stringsForNumbers(viaHttp));
        });
      }
      assert.equal(Number(await client.epoch()), await raw("queryLedgerState/epoch"));

      await t.step("queries db-sync cannot answer are refused clearly, not invented", async () => {
        // the client resolves an error reply that carries its method with the (absent) result: nothing invented
        assert.equal(await client.constitution(), undefined);
        const constitution = await f.rpc("queryLedgerState/constitution");
        assert.equal(constitution.body.error.code, -32601);
        assert.match(
          constitution.body.error.message,
          /queryLedgerState\/constitution cannot be answered from the chain database/,
        );
        const nonces = await f.rpc("queryLedgerState/nonces");
        assert.equal(nonces.status, 400);
        assert.match(nonces.body.error.message, /MAINNET_OGMIOS_URL/);
        const acquire = await f.rpc("acquireLedgerState", { point: "origin" });
        assert.equal(acquire.body.error.code, -32601);
        assert.match(acquire.body.error.message, /per-connection node state/);
      });
    } finally {
      await client.shutdown();
      await f.close();
    }
  },
});
