/**
 * Phase 2 for a submission: whether its Plutus scripts succeed within the execution units its redeemers
 * declare. The transaction's own `is_valid` flag must agree, or the ledger refuses it (a mismatch on its inputs
 * or on its collateral, with the reason).
 */
import { Either } from "effect";
import { redeemerEntries } from "../decoding/tx_parts.ts";
import * as E from "../errors.ts";
import type { LedgerParams } from "./ledger_view.ts";
import type { AcceptedTx } from "./phase1.ts";
import { evaluateScripts, type SlotConfig } from "./phase2.ts";

/** Right(true) when the scripts succeed, Right(false) when they fail as the transaction says, else the error. */
export const scriptsOutcome = (
  accepted: AcceptedTx,
  params: LedgerParams,
  slots: SlotConfig,
): Either.Either<boolean, E.OgmiosError> => {
  if (!accepted.runsPlutus) return Either.right(true);
  const declared = redeemerEntries(accepted.tx.witness_set().redeemers());
  const evaluated = evaluateScripts(accepted.tx, accepted.resolved, params, slots);
  const overBudget = Either.isRight(evaluated)
    ? evaluated.right.find((r) => {
      const d = declared.find((x) => x.purpose === r.validator.purpose && x.index === r.validator.index);
      return !d || d.mem < r.budget.memory || d.steps < r.budget.cpu;
    })
    : undefined;
  const succeeds = Either.isRight(evaluated) && overBudget === undefined;
  if (succeeds === accepted.tx.is_valid()) return Either.right(succeeds);
  const reason = Either.isLeft(evaluated)
    ? JSON.stringify((evaluated.left.data as ReadonlyArray<E.ValidatorFailure>)[0]?.error.data ?? {})
    : overBudget
    ? `the ${overBudget.validator.purpose} script at index ${overBudget.validator.index} needs more ` +
      "execution units than the redeemer declares"
    : "every script succeeds, yet the transaction is marked invalid";
  return Either.left(E.spendsMismatch(accepted.tx.is_valid() ? "inputs" : "collaterals", reason));
};
