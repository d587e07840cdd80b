/**
 * Chain sync's block JSON (src/jsonrpc/ogmios_block.ts, written as text) from rows: amounts are kept as PostgreSQL's text and
 * written as exact JSON numbers, and outputs come out as the UTxO query's (methods/utxo.ts toOgmiosOutput) do.
 */
import assert from "node:assert/strict";
import { parseExact, stringifyExact } from "@src/domain/json.ts";
import { ogmiosBlockTexts } from "@src/jsonrpc/ogmios_block.ts";
import { toOgmiosOutput } from "@src/jsonrpc/methods/utxo.ts";
import { type ChainBatch, emptyChainBatch, type OutputRow } from "@src/queries/chain_blocks.ts";

const big = "45000000000000000123"; // past 2^53: exact only if never a float
const policy = "ab".repeat(28);
const output = (txId: string, index: number, fields: Partial<OutputRow>): OutputRow => ({
  txId,
  txHash: "",
  index,
  address: "addr_test1vz",
  value: "1000000",
  dataHash: null,
  inlineDatum: null,
  scriptType: null,
  scriptJson: null,
  scriptBytes: null,
  assets: null,
  ...fields,
});

const outputs: Array<OutputRow> = [
  output("10", 0, { value: big }),
  output("10", 1, {
    assets: [
      { policy, name: "", quantity: "5" },
      { policy, name: "31", quantity: big },
      { policy: "cd".repeat(28), name: "4e4654", quantity: "1" },
      { policy, name: "", quantity: "7" }, // listed twice: summed
    ],
  }),
  output("10", 2, { dataHash: "11".repeat(32) }),
  output("10", 3, { dataHash: "11".repeat(32), inlineDatum: "d87980" }),
  output("10", 4, {
    scriptType: "timelock",
    scriptJson: {
      type: "all",
      scripts: [{ type: "sig", keyHash: "22".repeat(28) }, { type: "after", slot: 9 }],
    },
    scriptBytes: "8201",
  }),
  output("10", 5, { scriptType: "plutusV3", scriptBytes: "4e4d01" }),
  output("10", 6, { scriptType: "plutusV2", scriptBytes: null }),
  output("11", 0, { value: "2500000" }), // the failed transaction's collateral return
];

const tx = (id: string, valid: boolean) => ({
  id,
  blockId: "7",
  hash: id.repeat(32),
  fee: valid ? big : "170000",
  validContract: valid,
  invalidBefore: valid ? "12" : null,
  invalidHereafter: valid ? "18446744073709551615" : null,
  treasuryDonation: valid ? "0" : "3",
});

const batch: ChainBatch = {
  ...emptyChainBatch([{
    id: "7",
    hash: "ee".repeat(32),
    slot: "18446744073709551000",
    height: 6,
    size: 900,
    protoMajor: 9,
    protoMinor: 0,
    vrfKey: null,
    opCert: "ff".repeat(32),
    opCertCounter: "4",
    ancestor: "dd".repeat(32),
  }]),
  transactions: [tx("10", true), tx("11", false)],
  inputs: [
    { txId: "10", ref: "bb".repeat(32), index: 1 },
    { txId: "10", ref: "aa".repeat(32), index: 3 },
    { txId: "10", ref: "aa".repeat(32), index: 0 },
    { txId: "11", ref: "cc".repeat(32), index: 0 },
  ],
  outputs,
  withdrawals: [{ txId: "10", stakeAddress: "stake_test1u", amount: big }],
};

/** What a client reads: the JSON text parsed with integers past 2^53 as bigint. */
const wire = (value: unknown) => parseExact(stringifyExact(value));

Deno.test("chain sync block JSON: outputs as the UTxO query writes them, every amount exact", () => {
  const [block] = ogmiosBlockTexts(batch).map((text) => parseExact(text)) as Array<Record<string, unknown>>;
  const [valid, failed] = block!.transactions as Array<Record<string, unknown>>;
  const expected = (rows: Array<OutputRow>) => rows.map((r) => wire(toOgmiosOutput(r)));
  assert.deepEqual(valid!.outputs, expected(outputs.slice(0, 7)));
  // the duplicate token is summed, the large quantity stays exact, the native script is in Ogmios' clause form
  const value = (valid!.outputs as Array<{ value: Record<string, Record<string, unknown>> }>)[1]!.value;
  assert.deepEqual(value[policy], { "": 12, "31": 45000000000000000123n });
  assert.deepEqual((valid!.outputs as Array<Record<string, unknown>>)[4]!.script, {
    language: "native",
    json: {
      clause: "all",
      from: [{ clause: "signature", from: "22".repeat(28) }, { clause: "after", slot: 9 }],
    },
    cbor: "8201",
  });
  assert.deepEqual(valid!.fee, { ada: { lovelace: 45000000000000000123n } });
  assert.deepEqual(valid!.withdrawals, { stake_test1u: { ada: { lovelace: 45000000000000000123n } } });
  assert.deepEqual(valid!.validityInterval, { invalidBefore: 12, invalidAfter: 18446744073709551615n });
  assert.equal(valid!.treasury, undefined);
  assert.deepEqual(valid!.inputs, [
    { transaction: { id: "aa".repeat(32) }, index: 0 },
    { transaction: { id: "aa".repeat(32) }, index: 3 },
    { transaction: { id: "bb".repeat(32) }, index: 1 },
  ]);
  assert.equal(block!.slot, 18446744073709551000n);
  assert.deepEqual(
    (block!.issuer as Record<string, Record<string, unknown>>).operationalCertificate!.count,
    4,
  );
  // a failed transaction: its inputs are the collaterals, its stored output the collateral return
  assert.deepEqual(failed!.outputs, []);
  assert.deepEqual(failed!.collaterals, [{ transaction: { id: "cc".repeat(32) }, index: 0 }]);
  assert.deepEqual(failed!.collateralReturn, wire(toOgmiosOutput(outputs[7]!)));
  assert.deepEqual(failed!.treasury, { donation: { ada: { lovelace: 3 } } });
});

Deno.test("chain sync block JSON: each transaction its own rows, whatever order they come in", () => {
  // "9" comes before "10" as a number but after it as text: rows are matched to transactions as numbers
  const transactions = [tx("9", true), tx("10", true)];
  const rowsFor = (ids: ReadonlyArray<string>): ChainBatch => ({
    ...batch,
    transactions,
    inputs: ids.flatMap((id) => [
      { txId: id, ref: id.padStart(2, "0").repeat(32), index: 0 },
      { txId: id, ref: id.padStart(2, "0").repeat(32), index: 1 },
    ]),
    outputs: ids.flatMap((id) => [output(id, 0, { value: `${id}00` }), output(id, 1, { value: `${id}01` })]),
    withdrawals: [],
  });
  const inOrder = ogmiosBlockTexts(rowsFor(["9", "10"]));
  assert.deepEqual(ogmiosBlockTexts(rowsFor(["10", "9"])), inOrder, "the same blocks from rows out of order");
  const [block] = inOrder.map((text) => parseExact(text)) as Array<Record<string, unknown>>;
  const [nine, ten] = block!.transactions as Array<Record<string, unknown>>;
  const lovelace = (t: Record<string, unknown>) =>
    (t.outputs as Array<{ value: { ada: { lovelace: number } } }>).map((o) => o.value.ada.lovelace);
  assert.deepEqual(lovelace(nine!), [900, 901]);
  assert.deepEqual(lovelace(ten!), [1000, 1001]);
  assert.deepEqual(nine!.inputs, [
    { transaction: { id: "09".repeat(32) }, index: 0 },
    { transaction: { id: "09".repeat(32) }, index: 1 },
  ]);
  assert.deepEqual((ten!.inputs as Array<{ transaction: { id: string } }>).map((i) => i.transaction.id), [
    "10".repeat(32),
    "10".repeat(32),
  ]);
});
