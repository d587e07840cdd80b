/**
 * A submitted transaction's parts as the phase-1 rules read them, once its inputs are resolved against the
 * ledger view: read from CML once, so each rule check is a small function of this and the view.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { inputKey, listOf } from "../decoding/cml_conversions.ts";
import type { DecodedTransaction } from "../decoding/decode_tx.ts";
import type { LedgerParams } from "./ledger_view.ts";
import { ledgerTxSize } from "./min_fee.ts";

export interface Phase1Tx {
  readonly decoded: DecodedTransaction;
  readonly tx: CML.Transaction;
  readonly id: string;
  readonly body: CML.TransactionBody;
  readonly witnesses: CML.TransactionWitnessSet;
  readonly params: LedgerParams;
  /** The ledger's size (sizeTxF, without the validity flag): what maxTxSize bounds and db-sync records. */
  readonly size: number;
  readonly inputs: ReadonlyArray<CML.TransactionInput>;
  readonly collateral: ReadonlyArray<CML.TransactionInput>;
  readonly referenceInputs: ReadonlyArray<CML.TransactionInput>;
  readonly outputs: ReadonlyArray<CML.TransactionOutput>;
  readonly collateralReturn: CML.TransactionOutput | undefined;
  /** The outputs and the collateral return: what the transaction may create. */
  readonly newOutputs: ReadonlyArray<CML.TransactionOutput>;
  readonly withdrawals: CML.MapRewardAccountToCoin | undefined;
  readonly withdrawalAccounts: ReadonlyArray<CML.RewardAddress>;
  readonly resolved: ReadonlyMap<string, CML.TransactionOutput>;
  /** The output a (known) spent, collateral or reference input resolves to. */
  readonly spent: (input: CML.TransactionInput) => CML.TransactionOutput;
}

/** Spent, collateral and reference inputs, in that order: what must be resolved. */
export const allInputs = (body: CML.TransactionBody): Array<CML.TransactionInput> => [
  ...listOf(body.inputs()),
  ...listOf(body.collateral_inputs()),
  ...listOf(body.reference_inputs()),
];

export const phase1Tx = (
  decoded: DecodedTransaction,
  params: LedgerParams,
  resolved: ReadonlyMap<string, CML.TransactionOutput>,
): Phase1Tx => {
  const { tx, id } = decoded;
  const body = tx.body();
  const outputs = listOf(body.outputs());
  const collateralReturn = body.collateral_return();
  const withdrawals = body.withdrawals();
  return {
    decoded,
    tx,
    id,
    body,
    witnesses: tx.witness_set(),
    params,
    size: ledgerTxSize(tx),
    inputs: listOf(body.inputs()),
    collateral: listOf(body.collateral_inputs()),
    referenceInputs: listOf(body.reference_inputs()),
    outputs,
    collateralReturn,
    newOutputs: [...outputs, ...(collateralReturn ? [collateralReturn] : [])],
    withdrawals,
    withdrawalAccounts: listOf(withdrawals?.keys()),
    resolved,
    spent: (i) => resolved.get(inputKey(i))!,
  };
};
