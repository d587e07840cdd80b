/**
 * What fits in one block, as a node's forge measures it (ouroboros-consensus' Conway TxLimits): bytes (the
 * ledger's transaction size plus 4 per transaction, within the maximum block body size less 1,024), execution
 * units (within maxBlockExUnits, whatever phase 2 decided) and reference scripts (within 1 MiB). The forge takes
 * the longest prefix of the mempool that fits; the rest waits for the next blocks, in order. The mempool itself
 * holds twice that, in every dimension (computeMempoolCapacity).
 */
import type * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { AcceptedTx } from "../rules/phase1.ts";
import type { LedgerParams } from "../rules/ledger_view.ts";
import { ledgerTxSize } from "../rules/min_fee.ts";
import { maxReferenceScriptsSizePerBlock } from "../rules/reference_scripts.ts";
import { redeemerEntries } from "../decoding/tx_parts.ts";

export interface TxMeasure {
  readonly bytes: number;
  readonly mem: bigint;
  readonly steps: bigint;
  readonly referenceScripts: number;
}

const fixedBlockBodyOverhead = 1_024;
export const perTxOverhead = 4;

export const blockCapacity = (p: LedgerParams): TxMeasure => ({
  bytes: p.row.maxBlockSize - fixedBlockBodyOverhead,
  mem: BigInt(p.row.maxBlockExMem ?? "0"),
  steps: BigInt(p.row.maxBlockExSteps ?? "0"),
  referenceScripts: maxReferenceScriptsSizePerBlock,
});

/** A node's mempool holds at most two blocks' worth of transactions. */
export const mempoolCapacity = (p: LedgerParams): TxMeasure =>
  addMeasures(blockCapacity(p), blockCapacity(p));

/** Any transaction, validated or not, given the bytes of reference scripts its inputs carry. */
export const measureTx = (tx: CML.Transaction, referenceScripts: number): TxMeasure => {
  const redeemers = redeemerEntries(tx.witness_set().redeemers());
  return {
    bytes: ledgerTxSize(tx) + perTxOverhead,
    mem: redeemers.reduce((s, r) => s + r.mem, 0n),
    steps: redeemers.reduce((s, r) => s + r.steps, 0n),
    referenceScripts,
  };
};

export const txMeasure = (accepted: AcceptedTx): TxMeasure =>
  measureTx(accepted.tx, accepted.referenceScriptSize);

export const noMeasure: TxMeasure = { bytes: 0, mem: 0n, steps: 0n, referenceScripts: 0 };

export const addMeasures = (a: TxMeasure, b: TxMeasure): TxMeasure => ({
  bytes: a.bytes + b.bytes,
  mem: a.mem + b.mem,
  steps: a.steps + b.steps,
  referenceScripts: a.referenceScripts + b.referenceScripts,
});

export const within = (m: TxMeasure, capacity: TxMeasure): boolean =>
  m.bytes <= capacity.bytes && m.mem <= capacity.mem && m.steps <= capacity.steps &&
  m.referenceScripts <= capacity.referenceScripts;
