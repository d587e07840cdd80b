/**
 * The Conway ledger's minimum fee (getConwayMinFeeTx), exactly: fee per byte of the transaction as the ledger
 * sizes it, plus the constant, plus the execution prices of all redeemers (one ceiling over the exact sum), plus
 * the reference-script fee (tierRefScriptFee: the price per byte grows by 1.2 every 25,600 bytes; floored).
 * CML's and CSL's min_fee count the validity flag's byte (44 lovelace more), and CML rounds the reference-script
 * fee up (6,335,649 instead of 6,335,648 at 204,800 bytes): the ledger's numbers are what a node enforces.
 */
import type * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { LedgerParams } from "./ledger_view.ts";
import { redeemerEntries } from "../decoding/tx_parts.ts";

/**
 * The size the ledger charges and fills blocks with (sizeTxF): `[body, witnesses, auxiliary data]` from their
 * original bytes, without the validity flag of the submitted `[body, witnesses, valid, auxiliary data]`.
 */
export const ledgerTxSize = (tx: CML.Transaction): number => {
  const auxiliary = tx.auxiliary_data();
  return 1 + tx.body().to_cbor_bytes().length + tx.witness_set().to_cbor_bytes().length +
    (auxiliary ? auxiliary.to_cbor_bytes().length : 1);
};

const refScriptStride = 25_600n;
/** The per-byte price grows by 6/5 each stride. */
const [growthNum, growthDen] = [6n, 5n];

/** The reference-script fee for `size` bytes at `costPerByte` lovelace per byte of the first stride. */
export const referenceScriptsFee = (costPerByte: bigint, size: number): bigint => {
  // exact: acc / den with den = 5^tiers
  let num = 0n;
  let den = 1n;
  let price = costPerByte; // the current tier's price × den
  let left = BigInt(size);
  while (left >= refScriptStride) {
    num += refScriptStride * price;
    left -= refScriptStride;
    num *= growthDen;
    den *= growthDen;
    price *= growthNum;
  }
  return (num + left * price) / den;
};

const ceilDiv = (n: bigint, d: bigint) => (n + d - 1n) / d;

export const ledgerMinFee = (tx: CML.Transaction, p: LedgerParams, referenceScriptBytes: number): bigint => {
  const redeemers = redeemerEntries(tx.witness_set().redeemers());
  const mem = redeemers.reduce((s, r) => s + r.mem, 0n);
  const steps = redeemers.reduce((s, r) => s + r.steps, 0n);
  const memPrice = p.prices.mem_price(), stepPrice = p.prices.step_price();
  const [mn, md, sn, sd] = [
    memPrice.numerator(),
    memPrice.denominator(),
    stepPrice.numerator(),
    stepPrice.denominator(),
  ];
  const scriptFee = ceilDiv(mem * mn * sd + steps * sn * md, md * sd);
  return p.minFeeA * BigInt(ledgerTxSize(tx)) + p.minFeeB + scriptFee +
    referenceScriptsFee(p.linearFee.ref_script_cost_per_byte(), referenceScriptBytes);
};
