/** Era summaries and era start: mainnet's real bounds from its era history, the demo chain's, and Ogmios' schema. */
import assert from "node:assert/strict";
import { currentEraStart, eraSummaries } from "@src/domain/era_summaries.ts";
import { startRestFixture } from "../support/rest.ts";
import { assertMatchesOgmiosSchema } from "../support/ogmios_schema.ts";

Deno.test("mainnet's era history gives mainnet's known era bounds", () => {
  const history = {
    firstEpochs: [[2, 208], [3, 236], [4, 251], [5, 290], [6, 298], [7, 365], [8, 394], [9, 507], [10, 537]]
      .map(([major, epoch]) => ({ major: major!, epoch: epoch! })),
    tipEpoch: 590,
    tipSlot: 157_000_000,
  };
  const s = eraSummaries(history);
  assert.equal(s.length, 7);
  // Byron: 20 s slots until epoch 208, which began at slot 4,492,800, 89,856,000 s after system start
  assert.deepEqual(s[0]!.start, { time: { seconds: 0 }, slot: 0, epoch: 0 });
  assert.deepEqual(s[0]!.end, { time: { seconds: 89_856_000 }, slot: 4_492_800, epoch: 208 });
  assert.deepEqual(s[0]!.parameters, {
    epochLength: 21_600,
    slotLength: { milliseconds: 20_000 },
    safeZone: 4_320,
  });
  assert.deepEqual(s.map((e) => e.start.slot), [
    0,
    4_492_800,
    16_588_800,
    23_068_800,
    39_916_800,
    72_316_800,
    133_660_800,
  ]);
  // Conway began 2024-09-01T21:44:51Z, 219,024,000 s (2,535 days) after mainnet's system start
  assert.deepEqual(currentEraStart(history), {
    time: { seconds: 219_024_000 },
    slot: 133_660_800,
    epoch: 507,
  });
  assert.ok(s[6]!.end.slot > history.tipSlot, "the current era's end is past the tip (the safe horizon)");
});

Deno.test({
  name: "queryLedgerState/eraSummaries and eraStart over JSON-RPC",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const f = await startRestFixture("eras");
    try {
      for (
        const [method, response] of [
          ["queryLedgerState/eraSummaries", "QueryLedgerStateEraSummariesResponse"],
          ["queryLedgerState/eraStart", "QueryLedgerStateEraStartResponse"],
        ] as const
      ) {
        const { body } = await f.rpc(method);
        await assertMatchesOgmiosSchema(`ogmios.json#/properties/${response}`, body);
        if (method === "queryLedgerState/eraStart") {
          // the demo chain was born in Conway: its era began at genesis
          assert.deepEqual(body.result, { time: { seconds: 0 }, slot: 0, epoch: 0 });
        } else {
          assert.equal(body.result.length, 7);
          assert.ok(body.result.every((e: { start: { slot: number } }) => e.start.slot === 0));
        }
      }
    } finally {
      await f.close();
    }
  },
});
