/**
 * The per-transaction limits a node's mempool checks before it waits for room or validates anything
 * (ouroboros-consensus' txMeasure for Conway, in this order): the ledger size within maxTxSize (3119), the
 * declared execution units within maxTxExUnits (3134), the reference scripts of spent and referenced inputs
 * within 200 KiB (3166). A transaction within them fits an empty mempool, so nobody waits for room that can never
 * come.
 */
import { perTxOverhead, type TxMeasure } from "../blocks/block_capacity.ts";
import * as E from "../errors.ts";
import type { LedgerParams } from "../rules/ledger_view.ts";
import { maxReferenceScriptsSizePerTx } from "../rules/reference_scripts.ts";

export const txLimitsFailure = (m: TxMeasure, p: LedgerParams): E.OgmiosError | undefined => {
  const size = m.bytes - perTxOverhead;
  if (size > p.maxTxSize) return E.transactionTooLarge(size, p.maxTxSize);
  if (m.mem > p.maxTxExMem || m.steps > p.maxTxExSteps) {
    return E.executionUnitsTooLarge(
      { memory: m.mem, cpu: m.steps },
      { memory: p.maxTxExMem, cpu: p.maxTxExSteps },
    );
  }
  if (m.referenceScripts > maxReferenceScriptsSizePerTx) {
    return E.referenceScriptsTooLarge(m.referenceScripts, maxReferenceScriptsSizePerTx);
  }
  return undefined;
};
