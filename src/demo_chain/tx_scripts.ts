/**
 * Plutus script transactions: locking funds at the always-succeeds script, spending them with a redeemer, and
 * phase-2 failures that forfeit collateral; plus the datum rows they share.
 */
import type { Ledger } from "./ledger.ts";
import type { NewOutput, PlutusDatum } from "./ledger_types.ts";
import { ada, protocol } from "./network_params.ts";
import { b, j } from "./row_values.ts";
import { writeTx } from "./tx_writer.ts";

/** The datum row for a hash, written the first time the chain sees that datum (hashes are unique). */
const datumRowId = (ledger: Ledger, d: PlutusDatum, txId: number): number => {
  let id = ledger.datumIds.get(d.hash);
  if (id === undefined) {
    id = ledger.id("datum");
    ledger.datumIds.set(d.hash, id);
    ledger.row("datum", [id, b(d.hash), txId, j(d.json), b(d.cbor)]);
  }
  return id;
};

/** Locks funds at the always-succeeds script with an inline datum or a datum hash (datum in the witness set). */
export const scriptLock = (ledger: Ledger): boolean => {
  const inputs = ledger.takeInputs(40 * ada);
  if (inputs.length === 0) return false;
  const d = ledger.r.pick(ledger.datums);
  const inline = ledger.r.chance(0.5);
  const withRefScript = ledger.refScript.scriptId === 0 || ledger.r.chance(0.1);
  const owner = ledger.changeAddress(inputs[0]!);
  const lock: NewOutput = {
    address: ledger.alwaysSucceeds.address,
    value: ledger.r.int(5, 25) * ada,
    datum: { hash: d.hash, inlineId: null },
    spendable: "script",
  };
  const refOutput: NewOutput = { address: owner, value: 3 * ada, spendable: "never" };
  return writeTx(ledger, {
    inputs,
    outputs: withRefScript ? [lock, refOutput] : [lock],
    changeTo: owner,
    size: 500 + 110 * inputs.length + (withRefScript ? ledger.refScript.size : 0),
    prepare: (txId) => {
      const datumId = datumRowId(ledger, d, txId);
      if (inline) lock.datum = { hash: d.hash, inlineId: datumId };
      if (withRefScript && ledger.refScript.scriptId === 0) {
        ledger.refScript.scriptId = ledger.id("script");
        ledger.row("script", [
          ledger.refScript.scriptId,
          txId,
          b(ledger.refScript.hash),
          "plutusV3",
          null,
          b(ledger.refScript.bytes),
          ledger.refScript.size,
        ]);
      }
      refOutput.referenceScriptId = ledger.refScript.scriptId;
    },
    extra: (_txId, outIds) => {
      if (withRefScript) ledger.refScript.outputs.push(outIds[1]!);
    },
  }) > 0;
};

/** Spends a script-locked output with a redeemer, collateral, and the script in the witness or by reference. */
export const scriptSpend = (ledger: Ledger): boolean => {
  const locked = ledger.take(ledger.scriptPool);
  if (locked === undefined) return false;
  const fuel = ledger.takeInputs(5 * ada);
  const collateral = ledger.peekPooled();
  if (fuel.length === 0 || collateral === undefined) {
    for (const f of fuel) ledger.release(f);
    ledger.scriptPool.push(locked);
    return false;
  }
  const mem = ledger.r.int(200_000, 2_000_000);
  const steps = ledger.r.int(50_000_000, 800_000_000);
  const exFee = Math.ceil(mem * protocol.priceMem + steps * protocol.priceStep);
  const viaReference = ledger.refScript.outputs.length > 0 && ledger.r.chance(0.3);
  const inputs = [...fuel, locked];
  const sorted = [...inputs].sort((x, y) => {
    const hx = ledger.txHash[ledger.outTx.get(x)]!, hy = ledger.txHash[ledger.outTx.get(y)]!;
    return hx < hy ? -1 : hx > hy ? 1 : ledger.outIndex.get(x) - ledger.outIndex.get(y);
  });
  const redeemer = ledger.r.pick(ledger.datums);
  return writeTx(ledger, {
    inputs,
    outputs: [{
      address: ledger.wallets[ledger.randomWallet()]!.address,
      value: ledger.outValue.get(locked),
    }],
    changeTo: ledger.changeAddress(fuel[0]!),
    size: 900 + 110 * inputs.length + (viaReference ? 0 : ledger.alwaysSucceeds.size),
    exUnitsFee: exFee,
    scriptSize: viaReference ? 0 : ledger.alwaysSucceeds.size,
    collateral: [collateral],
    referenceInputs: viaReference ? [ledger.r.pick(ledger.refScript.outputs)] : [],
    redeemers: (txId) => {
      if (!viaReference && ledger.alwaysSucceeds.scriptId === 0) {
        ledger.alwaysSucceeds.scriptId = ledger.id("script");
        ledger.row("script", [
          ledger.alwaysSucceeds.scriptId,
          txId,
          b(ledger.alwaysSucceeds.hash),
          "plutusV2",
          null,
          b(ledger.alwaysSucceeds.bytes),
          ledger.alwaysSucceeds.size,
        ]);
      }
      const datum = ledger.datums.find((d) => d.hash === ledger.outDatum.get(locked));
      if (datum) datumRowId(ledger, datum, txId);
      let dataId = ledger.redeemerDataIds.get(redeemer.hash);
      if (dataId === undefined) {
        dataId = ledger.id("redeemer_data");
        ledger.redeemerDataIds.set(redeemer.hash, dataId);
        ledger.row("redeemer_data", [dataId, b(redeemer.hash), txId, j(redeemer.json), b(redeemer.cbor)]);
      }
      const redeemerId = ledger.id("redeemer");
      ledger.row("redeemer", [
        redeemerId,
        txId,
        mem,
        steps,
        exFee,
        "spend",
        sorted.indexOf(locked),
        b(ledger.alwaysSucceeds.hash),
        dataId,
      ]);
      return new Map([[locked, redeemerId]]);
    },
  }) > 0;
};

/** A phase-2 failure: db-sync keeps only the collateral (consumed, as tx_in) and the collateral return. */
export const failedScript = (ledger: Ledger): boolean => {
  const collateral = ledger.takeInputs(10 * ada);
  if (collateral.length !== 1 || ledger.outAssets.has(collateral[0]!)) {
    for (const c of collateral) ledger.release(c);
    return false;
  }
  const c = collateral[0]!;
  const fee = ledger.r.int(300_000, 900_000);
  const taken = Math.ceil((fee * protocol.collateralPercent) / 100);
  const txId = ledger.id("tx");
  const hash = ledger.r.hex(32);
  ledger.txHash[txId] = hash;
  ledger.spend(txId, c);
  ledger.row("collateral_tx_in", [
    ledger.id("collateral_tx_in"),
    txId,
    ledger.outTx.get(c),
    ledger.outIndex.get(c),
  ]);
  const back = ledger.outValue.get(c) - taken;
  const address = ledger.changeAddress(c);
  const bodyOutputs = 2;
  const stakeWallet = ledger.addrStakeWallet[address]!;
  const pay = ledger.addrPay[address];
  ledger.row("collateral_tx_out", [
    ledger.id("collateral_tx_out"),
    txId,
    bodyOutputs,
    ledger.addrText[address]!,
    ledger.addrScript[address]!,
    pay ? b(pay) : null,
    stakeWallet >= 0 ? ledger.stakeAddressId(stakeWallet) : null,
    back,
    null,
    "fromList []",
    null,
    null,
  ]);
  ledger.writeOutput(txId, bodyOutputs, { address, value: back });
  const size = 1_200;
  ledger.row("tx", [
    txId,
    b(hash),
    ledger.blockId,
    ledger.blockTxIndex++,
    back,
    taken,
    0,
    size,
    null,
    ledger.slot + 7_200,
    false,
    0,
    0,
  ]);
  ledger.feesByEpoch[ledger.epoch] = (ledger.feesByEpoch[ledger.epoch] ?? 0) + taken;
  ledger.epochOutSum += BigInt(back);
  ledger.blockSize += size;
  return true;
};
