/**
 * The script integrity hash over the witness set's original bytes, checked against cardano-serialization-lib's
 * `hash_script_data` (what wallets put in their bodies): redeemers only, datums as a tagged Conway set with and
 * without redeemers, each Plutus language alone, a language used only through a reference script, and V1 with
 * V2 (views ordered shortest key first). Datums written as an indefinite list hash as written.
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import * as CSL from "@emurgo/cardano-serialization-lib-nodejs";
import { blake2b } from "@noble/hashes/blake2.js";
import { hex } from "@scure/base";
import { mapField, scriptIntegrityHash, witnessSetBytes } from "@src/devnet/rules/script_integrity.ts";

const models: Record<string, Array<number>> = JSON.parse(
  Deno.readTextFileSync(new URL("../../src/demo_chain/cost_models.json", import.meta.url)),
);
const cml = CML.CostModels.from_json(
  JSON.stringify({ "0": models.PlutusV1, "1": models.PlutusV2, "2": models.PlutusV3 }),
);
const cslLanguages = {
  [CML.Language.PlutusV1]: { csl: CSL.Language.new_plutus_v1, name: "PlutusV1" },
  [CML.Language.PlutusV2]: { csl: CSL.Language.new_plutus_v2, name: "PlutusV2" },
  [CML.Language.PlutusV3]: { csl: CSL.Language.new_plutus_v3, name: "PlutusV3" },
};
const cslModels = (languages: ReadonlyArray<CML.Language>) => {
  const out = CSL.Costmdls.new();
  for (const l of languages) {
    const model = CSL.CostModel.new();
    models[cslLanguages[l].name]!.forEach((c, i) => model.set(i, CSL.Int.from_str(String(c))));
    out.insert(cslLanguages[l].csl(), model);
  }
  return out;
};
const big = (n: number) => CSL.BigNum.from_str(String(n));
const redeemers = () => {
  const r = CSL.Redeemers.new();
  r.add(
    CSL.Redeemer.new(
      CSL.RedeemerTag.new_spend(),
      big(0),
      CSL.PlutusData.from_hex("d87980"),
      CSL.ExUnits.new(big(7), big(9)),
    ),
  );
  return r;
};
const datums = () => {
  const list = CSL.PlutusList.new();
  list.add(CSL.PlutusData.from_hex("d87980"));
  list.add(CSL.PlutusData.from_hex("182a"));
  return list;
};

interface Case {
  readonly name: string;
  readonly redeemers: boolean;
  readonly datums: boolean;
  readonly languages: ReadonlyArray<CML.Language>;
}
const cases: ReadonlyArray<Case> = [
  { name: "V2, redeemers only", redeemers: true, datums: false, languages: [CML.Language.PlutusV2] },
  { name: "V1, redeemers and datums", redeemers: true, datums: true, languages: [CML.Language.PlutusV1] },
  { name: "V3, redeemers and datums", redeemers: true, datums: true, languages: [CML.Language.PlutusV3] },
  {
    name: "V1 and V2 together",
    redeemers: true,
    datums: true,
    languages: [CML.Language.PlutusV1, CML.Language.PlutusV2],
  },
  { name: "datums only, no scripts", redeemers: false, datums: true, languages: [] },
];

Deno.test("script integrity hash: as wallets compute it, over the bytes as written", async (t) => {
  for (const c of cases) {
    await t.step(c.name, () => {
      // a whole transaction as CSL writes it; the language is used through a reference script (none in the
      // witness set), so only the caller's list of languages can name it
      const witnesses = CSL.TransactionWitnessSet.new();
      if (c.redeemers) witnesses.set_redeemers(redeemers());
      if (c.datums) witnesses.set_plutus_data(datums());
      const body = CSL.TransactionBody.new_tx_body(
        CSL.TransactionInputs.new(),
        CSL.TransactionOutputs.new(),
        big(0),
      );
      const tx = CSL.Transaction.new(body, witnesses);
      const expected = CSL.hash_script_data(
        c.redeemers ? redeemers() : CSL.Redeemers.new(),
        cslModels(c.languages),
        c.datums ? datums() : undefined,
      ).to_hex();
      assert.equal(scriptIntegrityHash(witnessSetBytes(tx.to_bytes()), c.languages, cml), expected);
    });
  }

  await t.step("nothing to commit to: no hash", () => {
    const tx = CSL.Transaction.new(
      CSL.TransactionBody.new_tx_body(CSL.TransactionInputs.new(), CSL.TransactionOutputs.new(), big(0)),
      CSL.TransactionWitnessSet.new(),
    );
    assert.equal(scriptIntegrityHash(witnessSetBytes(tx.to_bytes()), [], cml), null);
  });

  await t.step("datums as an indefinite list hash exactly as written", () => {
    // witness set {4: [_ d87980, 182a]} and, separately, an untagged definite list of the same datums
    const indefinite = hex.decode("a1049fd87980182aff");
    const definite = hex.decode("a10482d87980182a");
    const hash = (bytes: Uint8Array) => hex.encode(blake2b(bytes, { dkLen: 32 }));
    assert.equal(scriptIntegrityHash(indefinite, [], cml), hash(hex.decode("a09fd87980182affa0")));
    assert.equal(scriptIntegrityHash(definite, [], cml), hash(hex.decode("a082d87980182aa0")));
  });

  await t.step("map fields are found in definite and indefinite maps, after tagged values", () => {
    const definite = hex.decode("a200d9010280" + "05a0");
    const indefinite = hex.decode("bf00d9010280" + "05a0ff");
    for (const map of [definite, indefinite]) {
      assert.deepEqual(mapField(map, 5), hex.decode("a0"));
      assert.deepEqual(mapField(map, 0), hex.decode("d9010280"));
      assert.equal(mapField(map, 4), undefined);
    }
  });
});
