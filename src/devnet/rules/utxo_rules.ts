/**
 * The Conway UTXO rule's checks (and LEDGER's reference-script bound), one small function each naming the
 * ledger's failure and Ogmios' code; each gives the failure or undefined. rules/phase1.ts runs them in the
 * node's order, so the same error wins when several apply.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { inputKey, inputRef, ogmiosOutput } from "../decoding/cml_conversions.ts";
import {
  addCmlValue,
  addMint,
  type Balance,
  emptyBalance,
  sameBalance,
  toOgmiosValue,
} from "../decoding/balance.ts";
import * as E from "../errors.ts";
import { bootstrapAttributesSize, maxBootstrapAttributesSize } from "./byron_attributes.ts";
import { maxReferenceScriptsSizePerTx } from "./reference_scripts.ts";
import type { Phase1Tx } from "./phase1_tx.ts";
import type { redeemerEntries } from "../decoding/tx_parts.ts";

type Failure = E.OgmiosError | undefined;
type RedeemerEntry = ReturnType<typeof redeemerEntries>[number];

/** InputSetEmptyUTxO (3121). */
export const inputSetNotEmpty = (body: CML.TransactionBody): Failure =>
  body.inputs().len() === 0 ? E.emptyInputSet() : undefined;

/** BadInputsUTxO (3117): every spent, collateral and reference input is unspent, each named once. */
export const inputsExist = (
  inputs: ReadonlyArray<CML.TransactionInput>,
  resolved: ReadonlyMap<string, CML.TransactionOutput>,
): Failure => {
  const unknown = inputs.filter((i) => !resolved.has(inputKey(i)));
  if (unknown.length === 0) return undefined;
  const seen = new Set<string>();
  return E.unknownOutputReferences(
    unknown.filter((i) => !seen.has(inputKey(i)) && seen.add(inputKey(i))).map(inputRef),
  );
};

/** ConwayTxRefScriptsSizeTooBig (3166). */
export const referenceScriptsWithinLimit = (referenceScriptSize: number): Failure =>
  referenceScriptSize > maxReferenceScriptsSizePerTx
    ? E.referenceScriptsTooLarge(referenceScriptSize, maxReferenceScriptsSizePerTx)
    : undefined;

/** OutsideValidityIntervalUTxO (3118). */
export const withinValidityInterval = (t: Phase1Tx, slot: number): Failure => {
  const start = t.body.validity_interval_start();
  const ttl = t.body.ttl();
  if ((start === undefined || BigInt(slot) >= start) && (ttl === undefined || BigInt(slot) < ttl)) {
    return undefined;
  }
  return E.outsideOfValidityInterval({
    ...(start !== undefined ? { invalidBefore: Number(start) } : {}),
    ...(ttl !== undefined ? { invalidAfter: Number(ttl) } : {}),
  }, slot);
};

/** MaxTxSizeUTxO (3119). */
export const withinMaxTxSize = (t: Phase1Tx): Failure =>
  t.size > t.params.maxTxSize ? E.transactionTooLarge(t.size, t.params.maxTxSize) : undefined;

/** WrongNetwork, WrongNetworkWithdrawal, WrongNetworkInTxBody (3124), in that order. */
export const onThisNetwork = (t: Phase1Tx, networkId: number): Failure => {
  const expected = networkId === 1 ? "mainnet" : "testnet";
  const wrongAddresses = t.newOutputs
    .map((o) => o.address())
    .filter((a) => a.kind() !== CML.AddressKind.Byron && a.network_id() !== networkId)
    .map((a) => a.to_bech32());
  if (wrongAddresses.length > 0) return E.networkMismatch(expected, "address", wrongAddresses);
  const wrongAccounts = t.withdrawalAccounts.filter((a) => a.network_id() !== networkId);
  if (wrongAccounts.length > 0) {
    return E.networkMismatch(expected, "rewardAccount", wrongAccounts.map((a) => a.to_address().to_bech32()));
  }
  const bodyNetwork = t.body.network_id();
  if (bodyNetwork && Number(bodyNetwork.network()) !== networkId) {
    return E.networkMismatch(expected, "transaction", []);
  }
  return undefined;
};

/** FeeTooSmallUTxO (3122). */
export const feeCoversMinimum = (t: Phase1Tx, minFee: bigint): Failure =>
  t.body.fee() < minFee ? E.transactionFeeTooSmall(minFee, t.body.fee()) : undefined;

/** ValueNotConservedUTxO (3123): inputs, withdrawals, refunds and minting against outputs, fee, deposits, donation. */
export const valueConserved = (t: Phase1Tx, deposits: bigint, refunds: bigint): Failure => {
  const consumed = emptyBalance();
  for (const i of t.inputs) addCmlValue(consumed, t.spent(i).amount());
  for (const account of t.withdrawalAccounts) consumed.lovelace += t.withdrawals!.get(account)!;
  consumed.lovelace += refunds;
  const produced = emptyBalance();
  for (const o of t.outputs) addCmlValue(produced, o.amount());
  produced.lovelace += t.body.fee() + deposits + (t.body.donation() ?? 0n);
  addMint(consumed, produced, t.body.mint());
  if (sameBalance(consumed, produced)) return undefined;
  return E.valueNotConserved(
    toOgmiosValue(consumed),
    toOgmiosValue(produced),
    consumed.lovelace < produced.lovelace,
  );
};

/** BabbageOutputTooSmallUTxO (3125), OutputTooBigUTxO (3120), OutputBootAddrAttrsTooBig (3126), in that order. */
export const outputsWellSized = (t: Phase1Tx): Failure => {
  const underfunded = t.newOutputs
    .map((o) => ({ o, minimum: CML.min_ada_required(o, t.params.coinsPerUtxoByte) }))
    .filter(({ o, minimum }) => o.amount().coin() < minimum);
  if (underfunded.length > 0) {
    return E.insufficientlyFundedOutputs(
      underfunded.map(({ o, minimum }) => ({ output: ogmiosOutput(o), minimumRequiredValue: minimum })),
    );
  }
  const tooLarge = t.outputs.filter((o) => o.amount().to_cbor_bytes().length > t.params.maxValueSize);
  if (tooLarge.length > 0) return E.valueTooLarge(tooLarge.map(ogmiosOutput));
  const bulkyByron = t.newOutputs.filter((o) =>
    bootstrapAttributesSize(o.address()) > maxBootstrapAttributesSize
  );
  if (bulkyByron.length > 0) return E.bootstrapAttributesTooLarge(bulkyByron.map(ogmiosOutput));
  return undefined;
};

/** The collateral's net value: collateral inputs less the collateral return. */
const collateralBalance = (t: Phase1Tx): Balance => {
  const net = emptyBalance();
  for (const c of t.collateral) addCmlValue(net, t.spent(c).amount());
  if (t.collateralReturn) addCmlValue(net, t.collateralReturn.amount(), -1n);
  return net;
};

/**
 * Collateral, when Plutus scripts run (feesOK): NoCollateralInputs (3132), TooManyCollateralInputs (3131),
 * ScriptsNotPaidUTxO (3129), InsufficientCollateral (3128), CollateralContainsNonADA (3133),
 * IncorrectTotalCollateralField (3135), in that order.
 */
export const collateralCovers = (t: Phase1Tx): Failure => {
  const p = t.params;
  if (t.collateral.length === 0) return E.missingCollateralInputs();
  if (t.collateral.length > p.maxCollateralInputs) {
    return E.tooManyCollateralInputs(p.maxCollateralInputs, t.collateral.length);
  }
  const locked = t.collateral.filter((c) => t.spent(c).address().payment_cred()?.as_script() !== undefined);
  if (locked.length > 0) return E.collateralLockedByScript(locked.map(inputRef));
  const net = collateralBalance(t);
  const required = (t.body.fee() * p.collateralPercent + 99n) / 100n;
  if (net.lovelace < required) return E.insufficientCollateral(net.lovelace, required);
  if (net.assets.size > 0) return E.nonAdaCollateral(toOgmiosValue(net));
  const declared = t.body.total_collateral();
  if (declared !== undefined && declared !== net.lovelace) {
    return E.totalCollateralMismatch(declared, net.lovelace);
  }
  return undefined;
};

/** ExUnitsTooBigUTxO (3134): the redeemers' execution units within maxTxExUnits. */
export const executionUnitsWithinLimit = (t: Phase1Tx, redeemers: ReadonlyArray<RedeemerEntry>): Failure => {
  const mem = redeemers.reduce((s, r) => s + r.mem, 0n);
  const steps = redeemers.reduce((s, r) => s + r.steps, 0n);
  if (mem <= t.params.maxTxExMem && steps <= t.params.maxTxExSteps) return undefined;
  return E.executionUnitsTooLarge({ memory: mem, cpu: steps }, {
    memory: t.params.maxTxExMem,
    cpu: t.params.maxTxExSteps,
  });
};
