/**
 * Phase 2: Plutus V1/V2/V3 scripts run by a real evaluator (Aiken's UPLC machine, @lucid-evolution/uplc) with
 * the cost models of the protocol parameters, giving execution units per redeemer in Ogmios' shape, or Ogmios'
 * 3010 ScriptExecutionFailure with the script's error and traces.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { eval_phase_two_raw } from "@lucid-evolution/uplc";
import { Either } from "effect";
import { inputKey } from "../decoding/cml_conversions.ts";
import * as E from "../errors.ts";
import type { LedgerParams } from "./ledger_view.ts";

export interface RedeemerBudget {
  readonly validator: E.RedeemerPointer;
  readonly budget: { readonly memory: bigint; readonly cpu: bigint };
}

/** Slot 0's time and the slot length: the evaluator turns validity intervals into POSIX time with them. */
export interface SlotConfig {
  readonly zeroTimeMs: number;
  readonly zeroSlot: number;
  readonly slotLengthMs: number;
}

const purposes: Record<number, E.RedeemerPointer["purpose"]> = {
  [CML.RedeemerTag.Spend]: "spend",
  [CML.RedeemerTag.Mint]: "mint",
  [CML.RedeemerTag.Cert]: "publish",
  [CML.RedeemerTag.Reward]: "withdraw",
  [CML.RedeemerTag.Voting]: "vote",
  [CML.RedeemerTag.Proposing]: "propose",
};

const errorPurposes: Record<string, E.RedeemerPointer["purpose"]> = {
  spend: "spend",
  mint: "mint",
  cert: "publish",
  publish: "publish",
  reward: "withdraw",
  withdraw: "withdraw",
  vote: "vote",
  voting: "vote",
  propose: "propose",
  proposing: "propose",
};

/** The evaluator's error text: which redeemer failed (when it says), the error, and the script's traces. */
const describeFailure = (message: string, fallback: E.RedeemerPointer): E.ValidatorFailure => {
  const pointer = /\b(spend|mint|cert|publish|reward|withdraw|vot(?:e|ing)|propos(?:e|ing))\b\D{0,12}(\d+)/i
    .exec(message);
  const validator = pointer
    ? { purpose: errorPurposes[pointer[1]!.toLowerCase()] ?? fallback.purpose, index: Number(pointer[2]) }
    : fallback;
  // the evaluator writes each trace on its own line, "Trace <message>", in the order they were emitted
  const traces = [...message.matchAll(/^\s*Trace (.*)$/gm)].map((m) => m[1]!);
  return { validator, error: E.validationFailure(message.trim(), traces) };
};

/**
 * Runs every script of the transaction with the full per-transaction budget; `resolved` must hold all spent,
 * collateral and reference inputs.
 */
export const evaluateScripts = (
  tx: CML.Transaction,
  resolved: ReadonlyMap<string, CML.TransactionOutput>,
  params: LedgerParams,
  slots: SlotConfig,
): Either.Either<ReadonlyArray<RedeemerBudget>, E.OgmiosError> => {
  const body = tx.body();
  const inputs: Array<CML.TransactionInput> = [];
  for (const list of [body.inputs(), body.collateral_inputs(), body.reference_inputs()]) {
    if (!list) continue;
    for (let i = 0; i < list.len(); i++) inputs.push(list.get(i));
  }
  const seen = new Set<string>();
  const unique = inputs.filter((i) => !seen.has(inputKey(i)) && seen.add(inputKey(i)));
  let results: Array<Uint8Array>;
  try {
    results = eval_phase_two_raw(
      tx.to_cbor_bytes(),
      unique.map((i) => i.to_cbor_bytes()),
      unique.map((i) => resolved.get(inputKey(i))!.to_cbor_bytes()),
      params.costModels.to_cbor_bytes(),
      params.maxTxExSteps,
      params.maxTxExMem,
      BigInt(slots.zeroTimeMs),
      BigInt(slots.zeroSlot),
      slots.slotLengthMs,
    );
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    return Either.left(E.scriptExecutionFailure([describeFailure(message, { purpose: "spend", index: 0 })]));
  }
  return Either.right(results.map((bytes) => {
    const r = CML.LegacyRedeemer.from_cbor_bytes(bytes);
    return {
      validator: { purpose: purposes[r.tag()]!, index: Number(r.index()) },
      budget: { memory: r.ex_units().mem(), cpu: r.ex_units().steps() },
    };
  }));
};
