/**
 * The Blockfrost evaluation wire without a service: every Ogmios v5.6 native script form read into v6's clause
 * JSON and from there into the script the devnet builds, assets with and without a name, bodies as hex and
 * base64, and v6 evaluation failures written as v5.6's EvaluationFailure.
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { Either } from "effect";
import { base64, hex } from "@scure/base";
import { evaluationAnswer, evaluationRefusal } from "@src/blockfrost/evaluation_answer.ts";
import { transactionFromBody, transactionFromJson } from "@src/blockfrost/evaluation_request.ts";
import { type OgmiosUtxoEntry, outputFromOgmios } from "@src/devnet/decoding/cml_conversions.ts";

const txId = "ab".repeat(32);
const policy = "cd".repeat(28);
const keyA = "01".repeat(28);
const keyB = "02".repeat(28);
const address = CML.EnterpriseAddress.new(1, CML.Credential.new_pub_key(CML.Ed25519KeyHash.from_hex(keyA)))
  .to_address().to_bech32();

const read = (body: unknown) => {
  const r = transactionFromJson(JSON.stringify(body));
  if (Either.isLeft(r)) throw new Error(`${r.left.parameter}: ${r.left.reason}`);
  return r.right;
};

Deno.test("blockfrost evaluation: v5.6 native scripts become the script the devnet builds", () => {
  const native = {
    all: [
      keyA,
      { any: [keyB, { startsAt: 10 }] },
      { NOf: { "1": [{ expiresAt: 99 }, keyA] } },
    ],
  };
  const tx = read({
    cbor: "84a0a0f5f6",
    additionalUtxoSet: [[{ txId, index: 1 }, {
      address,
      value: { coins: 2_000_000, assets: { [policy]: 5, [`${policy}.6869`]: "18446744073709551615" } },
      datum_hash: "ef".repeat(32),
      script: { native },
    }]],
  });
  const [entry] = tx.additionalUtxo as Array<OgmiosUtxoEntry>;
  assert.deepEqual(entry!.value, {
    ada: { lovelace: 2_000_000n },
    [policy]: { "": 5n, "6869": 18446744073709551615n },
  });
  assert.equal(entry!.datumHash, "ef".repeat(32));
  const sig = (k: string) => CML.NativeScript.new_script_pubkey(CML.Ed25519KeyHash.from_hex(k));
  const list = (...s: Array<CML.NativeScript>) => {
    const l = CML.NativeScriptList.new();
    for (const x of s) l.add(x);
    return l;
  };
  const expected = CML.NativeScript.new_script_all(list(
    sig(keyA),
    CML.NativeScript.new_script_any(list(sig(keyB), CML.NativeScript.new_script_invalid_before(10n))),
    CML.NativeScript.new_script_n_of_k(
      1n,
      list(CML.NativeScript.new_script_invalid_hereafter(99n), sig(keyA)),
    ),
  ));
  const output = outputFromOgmios(entry!);
  assert.equal(output.script_ref()?.as_native()?.to_cbor_hex(), expected.to_cbor_hex());
  assert.equal(output.amount().multi_asset().get_assets(CML.ScriptHash.from_hex(policy))?.len(), 2);
});

Deno.test("blockfrost evaluation: the transaction as raw bytes, hex or base64; v6 entries' nulls dropped", () => {
  const bytes = hex.decode("84a0a0f5f6");
  for (
    const body of [
      bytes,
      new TextEncoder().encode("84A0A0F5F6\n"),
      new TextEncoder().encode(base64.encode(bytes)),
    ]
  ) {
    assert.deepEqual(transactionFromBody(body), Either.right({ cbor: "84a0a0f5f6" }));
  }
  assert.equal(Either.isLeft(transactionFromBody(new Uint8Array())), true);
  const tx = read({
    cbor: base64.encode(bytes),
    additionalUtxoSet: [{
      transaction: { id: txId.toUpperCase() },
      index: 0,
      address,
      value: { ada: { lovelace: 1 } },
      datumHash: null,
      datum: null,
      script: null,
    }],
  });
  assert.deepEqual(tx, {
    cbor: "84a0a0f5f6",
    additionalUtxo: [{ transaction: { id: txId }, index: 0, address, value: { ada: { lovelace: 1n } } }],
  });
});

Deno.test("blockfrost evaluation: v6 failures in v5.6's EvaluationFailure", async () => {
  const v5 = async (error: { code: number; message: string; data?: unknown }) =>
    (await evaluationRefusal("5", error).json()).result.EvaluationFailure;
  const ref = { transaction: { id: txId }, index: 2 };
  assert.deepEqual(await v5({ code: 3002, message: "", data: { overlappingOutputReferences: [ref] } }), {
    AdditionalUtxoOverlap: [{ txId, index: 2 }],
  });
  assert.deepEqual(await v5({ code: 3004, message: "", data: { reason: "why" } }), {
    CannotCreateEvaluationContext: { reason: "why" },
  });
  assert.deepEqual(await v5({ code: 3000, message: "", data: { incompatibleEra: "mary" } }), {
    IncompatibleEra: "Mary",
  });
  assert.deepEqual(
    await v5({
      code: 3010,
      message: "",
      data: [
        {
          validator: { purpose: "publish", index: 1 },
          error: { code: 3012, message: "", data: { validationError: "boom", traces: ["t"] } },
        },
        {
          validator: { purpose: "withdraw", index: 0 },
          error: { code: 3011, message: "", data: { missingScripts: [{ purpose: "mint", index: 3 }] } },
        },
        {
          validator: { purpose: "spend", index: 0 },
          error: {
            code: 3117,
            message: "",
            data: {
              unknownOutputReferences: [ref],
            },
          },
        },
      ],
    }),
    {
      ScriptFailures: {
        "certificate:1": [{ validatorFailed: { error: "boom", traces: ["t"] } }],
        "withdrawal:0": [{ missingRequiredScripts: { missing: ["mint:3"], resolved: {} } }],
        "spend:0": [{ unknownInputReferencedByRedeemer: { txId, index: 2 } }],
      },
    },
  );
  const undecodable = evaluationRefusal("6", { code: -32602, message: "Invalid transaction" });
  assert.equal(undecodable.status, 400);
  assert.equal((await undecodable.json()).status_code, 400);
  const budgets = [{ validator: { purpose: "mint", index: 0 }, budget: { memory: 1, cpu: 2 } }];
  assert.deepEqual((await evaluationAnswer("5", budgets).json()).result, {
    EvaluationResult: { "mint:0": { memory: 1, steps: 2 } },
  });
  assert.equal(evaluationAnswer("5", { not: "budgets" }).status, 503);
});

Deno.test("blockfrost evaluation: Blaze's spelling `additionalUtxoset` and its v5.6 pairs (coins as a string)", () => {
  // what @blaze-cardano/query's Blockfrost provider sends: bigints as strings, `assets` a Map (so `{}`), `datum_hash`
  const tx = read({
    cbor: "84a0a0f5f6",
    additionalUtxoset: [[{ txId, index: 3 }, {
      address,
      value: { coins: "1500000", assets: {} },
      datum_hash: "ef".repeat(32),
    }]],
  });
  assert.deepEqual(tx.additionalUtxo, [{
    transaction: { id: txId },
    index: 3,
    address,
    value: { ada: { lovelace: 1_500_000n } },
    datumHash: "ef".repeat(32),
  }]);
});
