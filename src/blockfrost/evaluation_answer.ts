/**
 * The answer to a Blockfrost evaluation, from the node's Ogmios v6 result or error: by default Ogmios v5.6's
 * EvaluateTx response (what Lucid, Mesh and Blaze read: `result.EvaluationResult["spend:0"] = {memory, steps}`,
 * or `result.EvaluationFailure`), with `?version=6` v6's JSON-RPC reply. An evaluation that fails is still a
 * 200, its failure in the answer, as Blockfrost does; a transaction the node cannot decode is the dialect's 400.
 */
import { Either, Schema } from "effect";
import type { OgmiosError } from "@src/domain/errors.ts";
import { json } from "@src/http/json.ts";
import { blockfrostError } from "./failures.ts";

export type OgmiosVersion = "5" | "6";

const Budgets = Schema.Array(Schema.Struct({
  validator: Schema.Struct({ purpose: Schema.String, index: Schema.Number }),
  budget: Schema.Struct({
    memory: Schema.Union(Schema.Number, Schema.BigIntFromSelf),
    cpu: Schema.Union(Schema.Number, Schema.BigIntFromSelf),
  }),
}));
type Pointer = { readonly purpose: string; readonly index: number };
type Reference = { readonly transaction: { readonly id: string }; readonly index: number };

/** v6 purposes by their v5.6 names (Conway's vote and propose have none there: kept as they are). */
const v5Purposes: Readonly<Record<string, string>> = { publish: "certificate", withdraw: "withdrawal" };
const pointerV5 = (p: Pointer) => `${v5Purposes[p.purpose] ?? p.purpose}:${p.index}`;
const txInV5 = (r: Reference) => ({ txId: r.transaction.id, index: r.index });
const eraV5 = (era: unknown) => typeof era === "string" ? era.charAt(0).toUpperCase() + era.slice(1) : era;

const v5 = (result: unknown) => ({
  type: "jsonwsp/response",
  version: "1.0",
  servicename: "ogmios",
  methodname: "EvaluateTx",
  result,
  reflection: { id: crypto.randomUUID() },
});

// deno-lint-ignore no-explicit-any
type Data = any;

/** A v6 failure of one validator (3010's list) as v5.6's ScriptFailure entries. */
const scriptFailuresV5 = (error: OgmiosError): Array<unknown> => {
  const data: Data = error.data ?? {};
  switch (error.code) {
    case 3011:
      return [{
        missingRequiredScripts: { missing: (data.missingScripts ?? []).map(pointerV5), resolved: {} },
      }];
    case 3012:
      return [{
        validatorFailed: { error: data.validationError ?? error.message, traces: data.traces ?? [] },
      }];
    case 3013:
      return [{ nonScriptInputReferencedByRedeemer: txInV5(data.unsuitableOutputReference) }];
    case 3110:
      return [{ extraRedeemers: (data.extraneousRedeemers ?? []).map(pointerV5) }];
    case 3111:
      return [{ missingRequiredDatums: { missing: data.missingDatums ?? [], provided: [] } }];
    case 3115:
      return (data.missingCostModels ?? []).map((language: unknown) => ({
        noCostModelForLanguage: language,
      }));
    case 3117:
      return (data.unknownOutputReferences ?? []).map((r: Reference) => ({
        unknownInputReferencedByRedeemer: txInV5(r),
      }));
    case 3161:
      return [{ illFormedExecutionBudget: null }];
    default:
      return [{ validatorFailed: { error: error.message, traces: [] } }];
  }
};

/** A v6 evaluation error as v5.6's `EvaluationFailure`. */
const evaluationFailureV5 = (error: OgmiosError): unknown => {
  const data: Data = error.data ?? {};
  switch (error.code) {
    case 3000:
      return { IncompatibleEra: eraV5(data.incompatibleEra) };
    case 3001:
      return { IncompatibleEra: eraV5(data.unsupportedEra) };
    case 3002:
      return { AdditionalUtxoOverlap: (data.overlappingOutputReferences ?? []).map(txInV5) };
    case 3003:
      return {
        NotEnoughSynced: {
          currentNodeEra: eraV5(data.currentNodeEra),
          minimumRequiredEra: eraV5(data.minimumRequiredEra),
        },
      };
    case 3010: {
      const failures: Record<string, Array<unknown>> = {};
      for (const f of Array.isArray(data) ? data : []) {
        (failures[pointerV5(f.validator)] ??= []).push(...scriptFailuresV5(f.error));
      }
      return { ScriptFailures: failures };
    }
    default:
      return { CannotCreateEvaluationContext: { reason: data.reason ?? error.message } };
  }
};

/** The node's result: each redeemer's budget. */
export const evaluationAnswer = (version: OgmiosVersion, result: unknown): Response => {
  const budgets = Schema.decodeUnknownEither(Budgets)(result);
  if (Either.isLeft(budgets)) {
    return blockfrostError(503, "The node answered the evaluation with something that is not a budget list");
  }
  if (version === "6") return json({ jsonrpc: "2.0", method: "evaluateTransaction", result, id: null });
  const evaluation: Record<string, { memory: number | bigint; steps: number | bigint }> = {};
  for (const { validator, budget } of budgets.right) {
    evaluation[pointerV5(validator)] = { memory: budget.memory, steps: budget.cpu };
  }
  return json(v5({ EvaluationResult: evaluation }));
};

/**
 * The node's refusal: a transaction it cannot read (JSON-RPC's own negative codes) is a 400; an evaluation
 * failure (3xxx) is the answer.
 */
export const evaluationRefusal = (version: OgmiosVersion, error: OgmiosError): Response => {
  if (error.code < 0) return blockfrostError(400, `Cannot evaluate the transaction: ${error.message}`);
  if (version === "6") return json({ jsonrpc: "2.0", method: "evaluateTransaction", error, id: null });
  return json(v5({ EvaluationFailure: evaluationFailureV5(error) }));
};
