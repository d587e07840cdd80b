/**
 * Reference scripts as the Conway ledger measures them (txNonDistinctRefScriptsSize): every spent or referenced
 * input once, each script by its original bytes (a Plutus script's own bytes, a native script's CBOR, never the
 * `[language, script]` of the output's script reference), the same script counted again for each input carrying
 * it. The sizes bound a transaction and a block, and price the fee (min_fee.ts).
 */
import type * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { inputKey, plutusScriptBytes } from "../decoding/cml_conversions.ts";

/** The ledger's fixed per-transaction limit (200 KiB), not a protocol parameter. */
export const maxReferenceScriptsSizePerTx = 200 * 1024;
/** The ledger's fixed per-block limit (1 MiB). */
export const maxReferenceScriptsSizePerBlock = 1024 * 1024;

export const originalScriptSize = (script: CML.Script): number =>
  plutusScriptBytes(script)?.length ?? script.as_native()!.to_cbor_bytes().length;

/** Spent and reference inputs must be resolved; an input listed in both counts once. */
export const referenceScriptsSize = (
  inputs: ReadonlyArray<CML.TransactionInput>,
  resolved: ReadonlyMap<string, CML.TransactionOutput>,
): number => {
  let size = 0;
  for (const key of new Set(inputs.map(inputKey))) {
    const script = resolved.get(key)?.script_ref();
    if (script) size += originalScriptSize(script);
  }
  return size;
};
