/**
 * The balanced transaction writer every transaction kind goes through: inputs + withdrawals = outputs + change +
 * fee + deposit, with tokens, certificates, scripts and metadata written against the new tx id.
 */
import * as enc from "./cardano_encoding.ts";
import type { Ledger } from "./ledger.ts";
import type { Certs, NewOutput } from "./ledger_types.ts";
import { ada } from "./network_params.ts";
import { b, j } from "./row_values.ts";

/** What a transaction spends, creates and carries; the hooks write the rows that need its tx id. */
export interface TxSpec {
  inputs: Array<number>;
  outputs: Array<NewOutput>;
  changeTo: number;
  size: number;
  deposit?: number;
  withdrawals?: Array<{ wallet: number; amount: number }>;
  mint?: Array<[number, bigint]>;
  exUnitsFee?: number;
  scriptSize?: number;
  validityStart?: boolean;
  /** Runs once the tx id exists, before outputs are written (datum and script rows the outputs refer to). */
  prepare?: (txId: number) => void;
  extra?: (txId: number, outIds: Array<number>) => void;
  certs?: (txId: number, c: Certs) => void;
  redeemers?: (txId: number) => Map<number, number>;
  collateral?: Array<number>;
  referenceInputs?: Array<number>;
  metadata?: Array<[number, unknown]>;
}

/**
 * Writes one transaction: spends `inputs`, creates `outputs` plus change to `changeTo`, and balances
 * in + withdrawals = out + fee + deposit. Returns the tx id, or 0 when the inputs cannot cover it (nothing is
 * written then and the inputs go back to the pool).
 */
export const writeTx = (ledger: Ledger, spec: TxSpec): number => {
  const deposit = spec.deposit ?? 0;
  const withdrawn = (spec.withdrawals ?? []).reduce((s, w) => s + w.amount, 0);
  const fee = ledger.fee(spec.size, spec.exUnitsFee ?? 0);
  const inSum = spec.inputs.reduce((s, i) => s + ledger.outValue.get(i), 0);
  const outFixed = spec.outputs.reduce((s, o) => s + o.value, 0);
  let change = inSum + withdrawn - outFixed - fee - deposit;
  let assets = ledger.sumAssets(spec.inputs);
  if (spec.mint) {
    assets ??= new Map();
    for (const [ident, q] of spec.mint) assets.set(ident, (assets.get(ident) ?? 0n) + q);
  }
  for (const o of spec.outputs) {
    if (!o.assets) continue;
    assets ??= new Map();
    for (const [ident, q] of o.assets) assets.set(ident, (assets.get(ident) ?? 0n) - q);
  }
  if (assets) { for (const [ident, q] of assets) if (q === 0n) assets.delete(ident); }
  const hasAssets = assets !== undefined && assets.size > 0;
  const minChange = hasAssets ? 2 * ada : ada;
  if (change < minChange && !(change === 0 && !hasAssets)) {
    if (change > 0 && !hasAssets && spec.outputs.length > 0) {
      // fold dust change into the first output rather than create an output under the minimum
      spec.outputs[0]!.value += change;
      change = 0;
    } else {
      for (const i of spec.inputs) ledger.release(i);
      return 0;
    }
  }
  const txId = ledger.id("tx");
  const hash = ledger.r.hex(32);
  ledger.txHash[txId] = hash;
  spec.prepare?.(txId);
  const redeemerFor = spec.redeemers ? spec.redeemers(txId) : new Map<number, number>();
  for (const i of spec.inputs) ledger.spend(txId, i, redeemerFor.get(i) ?? null);
  for (const c of spec.collateral ?? []) {
    ledger.row("collateral_tx_in", [
      ledger.id("collateral_tx_in"),
      txId,
      ledger.outTx.get(c),
      ledger.outIndex.get(c),
    ]);
  }
  for (const ref of spec.referenceInputs ?? []) {
    ledger.row("reference_tx_in", [
      ledger.id("reference_tx_in"),
      txId,
      ledger.outTx.get(ref),
      ledger.outIndex.get(ref),
    ]);
  }
  const outputs = [...spec.outputs];
  if (change > 0) outputs.push({ address: spec.changeTo, value: change, assets });
  const outIds = outputs.map((o, index) => ledger.writeOutput(txId, index, o));
  const outSum = outputs.reduce((s, o) => s + o.value, 0);
  for (const w of spec.withdrawals ?? []) {
    const wallet = ledger.wallets[w.wallet]!;
    wallet.rewards -= w.amount;
    ledger.row("withdrawal", [
      ledger.id("withdrawal"),
      ledger.stakeAddressId(w.wallet),
      w.amount,
      null,
      txId,
    ]);
  }
  for (const [ident, q] of spec.mint ?? []) {
    ledger.row("ma_tx_mint", [ledger.id("ma_tx_mint"), q, txId, ident]);
  }
  if (spec.certs) spec.certs(txId, { cert: 0 });
  if (spec.extra) spec.extra(txId, outIds);
  for (const [key, json] of spec.metadata ?? []) {
    ledger.row("tx_metadata", [ledger.id("tx_metadata"), key, j(json), b(enc.metadatumCbor(json)), txId]);
  }
  const invalidHereafter = ledger.slot + ledger.r.int(3_600, 10_800);
  ledger.row("tx", [
    txId,
    b(hash),
    ledger.blockId,
    ledger.blockTxIndex++,
    outSum,
    fee,
    deposit,
    spec.size,
    spec.validityStart ? ledger.slot - ledger.r.int(10, 600) : null,
    invalidHereafter,
    true,
    spec.scriptSize ?? 0,
    0,
  ]);
  ledger.feesByEpoch[ledger.epoch] = (ledger.feesByEpoch[ledger.epoch] ?? 0) + fee;
  ledger.epochOutSum += BigInt(outSum);
  ledger.blockSize += spec.size;
  return txId;
};
