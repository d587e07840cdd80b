/**
 * Phase-1 ledger rules (Conway): what a node checks before a transaction may enter its mempool, against the
 * ledger view (UTxO, parameters, stake state) — inputs, validity interval, size, network, witnesses and real
 * ed25519 signatures, scripts, datums and redeemers, script integrity, fee, value conservation, min-UTxO,
 * collateral, execution units, certificates and withdrawals, and governance (governance/rules.ts). Each check is
 * a small function naming its rule and code (utxo_rules.ts, witness_rules.ts, certificates.ts, pools.ts,
 * governance/); here they run in the node's order, and the first failing one gives Ogmios' error object.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect, Either } from "effect";
import type { DecodedTransaction } from "../decoding/decode_tx.ts";
import { redeemerEntries } from "../decoding/tx_parts.ts";
import type * as E from "../errors.ts";
import {
  checkGovernanceRules,
  checkWithdrawalGovernance,
  type GovernanceEffects,
} from "../governance/rules.ts";
import { checkStakeRules } from "./certificates.ts";
import type { LedgerView } from "./ledger_view.ts";
import { ledgerMinFee } from "./min_fee.ts";
import { allInputs, phase1Tx } from "./phase1_tx.ts";
import { checkPoolRules } from "./pools.ts";
import { referenceScriptsSize } from "./reference_scripts.ts";
import { availableScripts, requiredWitnesses, witnessScripts } from "./required_witnesses.ts";
import {
  collateralCovers,
  executionUnitsWithinLimit,
  feeCoversMinimum,
  inputSetNotEmpty,
  inputsExist,
  onThisNetwork,
  outputsWellSized,
  referenceScriptsWithinLimit,
  valueConserved,
  withinMaxTxSize,
  withinValidityInterval,
} from "./utxo_rules.ts";
import {
  datumsMatchSpends,
  metadataHashMatches,
  nativeScriptsPass,
  neededScripts,
  redeemersMatchPurposes,
  scriptIntegrityMatches,
  scriptsMatchNeeds,
  scriptsWellFormed,
  signatoriesPresent,
  signaturesVerify,
  signedKeys,
} from "./witness_rules.ts";

/** A transaction that passed phase 1, with what the mempool and block writer need from it. */
export interface AcceptedTx extends DecodedTransaction {
  readonly size: number;
  /** Spent, collateral and reference inputs, resolved. */
  readonly resolved: ReadonlyMap<string, CML.TransactionOutput>;
  readonly fee: bigint;
  /** Deposits paid minus deposits refunded. */
  readonly deposit: bigint;
  /** Whether the transaction runs Plutus scripts (and so phase 2 applies). */
  readonly runsPlutus: boolean;
  /** Stake credentials (reward address hex) it registers (true) or deregisters (false). */
  readonly stakeRegistration: ReadonlyMap<string, boolean>;
  readonly withdrawn: ReadonlyArray<string>;
  readonly poolsRegistered: ReadonlyArray<string>;
  /** Bytes of reference scripts as the ledger counts them (per-block limit). */
  readonly referenceScriptSize: number;
  /** DReps, committee hot keys, proposals and vote delegations it changes. */
  readonly governance: GovernanceEffects;
}

const fail = (error: E.OgmiosError) => Either.left(error);

/** Runs the phase-1 rules; returns the accepted transaction or the first failure as Ogmios' error object. */
export const validatePhase1 = (
  decoded: DecodedTransaction,
  view: LedgerView,
): Effect.Effect<Either.Either<AcceptedTx, E.OgmiosError>, SqlError> =>
  Effect.gen(function* () {
    const { tx, id } = decoded;
    const body = tx.body();
    const empty = inputSetNotEmpty(body);
    if (empty) return fail(empty);
    const inputs = allInputs(body);
    const resolved = yield* view.resolve(inputs);
    const unknown = inputsExist(inputs, resolved);
    if (unknown) return fail(unknown);
    const t = phase1Tx(decoded, view.params, resolved);
    const referenceScriptSize = referenceScriptsSize([...t.inputs, ...t.referenceInputs], resolved);

    const structural = referenceScriptsWithinLimit(referenceScriptSize) ??
      withinValidityInterval(t, view.slot) ??
      withinMaxTxSize(t) ??
      onThisNetwork(t, view.networkId) ??
      metadataHashMatches(t) ??
      signaturesVerify(t);
    if (structural) return fail(structural);

    // what must authorise the transaction, and the scripts it brings
    const required = requiredWitnesses(t);
    const witnessed = witnessScripts(t.witnesses);
    const malformed = scriptsWellFormed(t, witnessed);
    if (malformed) return fail(malformed);
    const available = availableScripts(t, witnessed);
    const needed = neededScripts(required.needs);
    const signedBy = signedKeys(t);
    // (a needed script not available fails scriptsMatchNeeds before anything reads these)
    const plutusNeeds = required.needs.filter((n) =>
      n.script && available.get(n.script)?.kind() !== CML.ScriptKind.Native
    );
    const redeemers = redeemerEntries(t.witnesses.redeemers());
    const witnessing = scriptsMatchNeeds(needed, available, witnessed) ??
      nativeScriptsPass(t, needed, available, signedBy) ??
      signatoriesPresent(t, required, signedBy) ??
      redeemersMatchPurposes(plutusNeeds, redeemers, required) ??
      datumsMatchSpends(t, plutusNeeds, available, required) ??
      scriptIntegrityMatches(t, plutusNeeds, available) ??
      feeCoversMinimum(t, ledgerMinFee(tx, t.params, referenceScriptSize));
    if (witnessing) return fail(witnessing);

    // the treasury the body declares, and withdrawals only by accounts that delegate their vote (PV10)
    const withdrawalGovernance = yield* checkWithdrawalGovernance(body, view);
    if (withdrawalGovernance._tag === "Some") return fail(withdrawalGovernance.value);
    // pool certificates, certificates and withdrawals against the stake state, then governance; deposits and
    // refunds
    const pools = yield* checkPoolRules(body, view);
    if (Either.isLeft(pools)) return fail(pools.left);
    const stake = yield* checkStakeRules(body, view);
    if (Either.isLeft(stake)) return fail(stake.left);
    const { stakeRegistration, poolsRegistered, withdrawn } = stake.right;
    const checkedGovernance = yield* checkGovernanceRules(body, id, view, stake.right);
    if (Either.isLeft(checkedGovernance)) return fail(checkedGovernance.left);
    const governance = checkedGovernance.right;
    const deposits = stake.right.deposits + governance.deposits;
    const refunds = stake.right.refunds + governance.refunds;

    const runsPlutus = redeemers.length > 0;
    const balance = valueConserved(t, deposits, refunds) ??
      outputsWellSized(t) ??
      (runsPlutus ? collateralCovers(t) ?? executionUnitsWithinLimit(t, redeemers) : undefined);
    if (balance) return fail(balance);

    return Either.right({
      ...decoded,
      size: t.size,
      resolved,
      fee: body.fee(),
      deposit: deposits - refunds,
      runsPlutus,
      stakeRegistration,
      withdrawn,
      poolsRegistered,
      referenceScriptSize,
      governance,
    });
  });
