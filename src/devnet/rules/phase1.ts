/**
 * Phase-1 ledger rules (Conway): what a node checks before a transaction may enter its mempool, against the
 * ledger view (UTxO, parameters, stake state) — inputs, validity interval, size, network, witnesses and real
 * ed25519 signatures, scripts, datums and redeemers, script integrity, fee, value conservation, min-UTxO,
 * collateral, execution units, certificates and withdrawals, and governance (governance_rules.ts). The first
 * failing rule gives Ogmios' error object.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { SqlError } from "@effect/sql/SqlError";
import { hex } from "@scure/base";
import { Effect, Either } from "effect";
import {
  inputKey,
  inputRef,
  listOf,
  ogmiosOutput,
  plutusScriptBytes,
  scriptLanguage,
} from "../decoding/cml_conversions.ts";
import type { DecodedTransaction } from "../decoding/decode_tx.ts";
import * as E from "../errors.ts";
import type { LedgerView } from "./ledger_view.ts";
import { checkStakeRules } from "./certificates.ts";
import { scriptIntegrityHash, witnessSetBytes } from "./script_integrity.ts";
import { checkPoolRules } from "./pools.ts";
import { ledgerMinFee, ledgerTxSize } from "./min_fee.ts";
import { type PlutusLanguage, plutusScriptWellFormed } from "./plutus_wellformed.ts";
import { bootstrapAttributesSize, maxBootstrapAttributesSize } from "./byron_attributes.ts";
import { maxReferenceScriptsSizePerTx, referenceScriptsSize } from "./reference_scripts.ts";
import { cmlCredential, proposalsOf, votesOf } from "../governance/parts.ts";
import {
  checkGovernanceRules,
  checkWithdrawalGovernance,
  type GovernanceEffects,
  ogmiosVoter,
} from "../governance/rules.ts";
import {
  accountsInLedgerOrder,
  certificateCredential,
  governanceCertificateCredential,
  inLedgerOrder,
  redeemerEntries,
} from "../decoding/tx_parts.ts";
import { ogmiosProposal } from "@src/domain/ogmios_governance.ts";
import { dbSyncDescription } from "../governance/action_json.ts";
import { ogmiosCertificate } from "../decoding/ogmios_certificate.ts";
import { addCmlValue, addMint, emptyBalance, sameBalance, toOgmiosValue } from "../decoding/balance.ts";

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

type Purpose = E.RedeemerPointer["purpose"];

/** A credential the transaction must be authorised by: a key (signature) or a script (witness + maybe redeemer). */
interface Need {
  readonly key?: string;
  readonly script?: string;
  readonly purpose?: { purpose: Purpose; index: number };
}

const credentialNeed = (c: CML.Credential, purpose?: { purpose: Purpose; index: number }): Need =>
  c.as_pub_key() ? { key: c.as_pub_key()!.to_hex() } : { script: c.as_script()!.to_hex(), purpose };

const fail = (error: E.OgmiosError) => Either.left(error);

/** Runs the phase-1 rules; returns the accepted transaction or the first failure as Ogmios' error object. */
export const validatePhase1 = (
  decoded: DecodedTransaction,
  view: LedgerView,
): Effect.Effect<Either.Either<AcceptedTx, E.OgmiosError>, SqlError> =>
  Effect.gen(function* () {
    const { tx, id } = decoded;
    const body = tx.body();
    const witnesses = tx.witness_set();
    const p = view.params;
    // the ledger's size (sizeTxF, without the validity flag): what maxTxSize bounds and db-sync records as tx.size
    const size = ledgerTxSize(tx);
    const inputs = listOf(body.inputs());
    const collateral = listOf(body.collateral_inputs());
    const referenceInputs = listOf(body.reference_inputs());

    // inputs exist and are unspent (InputsExhausted)
    if (inputs.length === 0) return fail(E.emptyInputSet());
    const resolved = yield* view.resolve([...inputs, ...collateral, ...referenceInputs]);
    const unknown = [...inputs, ...collateral, ...referenceInputs].filter((i) => !resolved.has(inputKey(i)));
    if (unknown.length > 0) {
      const seen = new Set<string>();
      return fail(E.unknownOutputReferences(
        unknown.filter((i) => !seen.has(inputKey(i)) && seen.add(inputKey(i))).map(inputRef),
      ));
    }
    const spent = (i: CML.TransactionInput) => resolved.get(inputKey(i))!;
    const referenceScriptSize = referenceScriptsSize([...inputs, ...referenceInputs], resolved);
    if (referenceScriptSize > maxReferenceScriptsSizePerTx) {
      return fail(E.referenceScriptsTooLarge(referenceScriptSize, maxReferenceScriptsSizePerTx));
    }

    // validity interval (TxExpired)
    const start = body.validity_interval_start();
    const ttl = body.ttl();
    if (
      (start !== undefined && BigInt(view.slot) < start) || (ttl !== undefined && BigInt(view.slot) >= ttl)
    ) {
      return fail(E.outsideOfValidityInterval({
        ...(start !== undefined ? { invalidBefore: Number(start) } : {}),
        ...(ttl !== undefined ? { invalidAfter: Number(ttl) } : {}),
      }, view.slot));
    }

    if (size > p.maxTxSize) return fail(E.transactionTooLarge(size, p.maxTxSize));

    // network ids of outputs, reward accounts and the body
    const expected = view.networkId === 1 ? "mainnet" : "testnet";
    const outputs = listOf(body.outputs());
    const collateralReturn = body.collateral_return();
    const wrongAddresses = [...outputs, ...(collateralReturn ? [collateralReturn] : [])]
      .map((o) => o.address())
      .filter((a) => a.kind() !== CML.AddressKind.Byron && a.network_id() !== view.networkId)
      .map((a) => a.to_bech32());
    if (wrongAddresses.length > 0) return fail(E.networkMismatch(expected, "address", wrongAddresses));
    const withdrawals = body.withdrawals();
    const withdrawalAccounts = listOf(withdrawals?.keys());
    const wrongAccounts = withdrawalAccounts.filter((a) => a.network_id() !== view.networkId);
    if (wrongAccounts.length > 0) {
      return fail(
        E.networkMismatch(expected, "rewardAccount", wrongAccounts.map((a) => a.to_address().to_bech32())),
      );
    }
    const bodyNetwork = body.network_id();
    if (bodyNetwork && Number(bodyNetwork.network()) !== view.networkId) {
      return fail(E.networkMismatch(expected, "transaction", []));
    }

    // the body commits to the metadata it carries
    const auxiliary = tx.auxiliary_data();
    const declaredAuxiliary = body.auxiliary_data_hash()?.to_hex();
    const carriedAuxiliary = auxiliary ? CML.hash_auxiliary_data(auxiliary).to_hex() : undefined;
    if (carriedAuxiliary && !declaredAuxiliary) return fail(E.missingMetadataHash(carriedAuxiliary));
    if (declaredAuxiliary && !carriedAuxiliary) return fail(E.missingMetadata(declaredAuxiliary));
    if (declaredAuxiliary !== carriedAuxiliary) {
      return fail(E.metadataHashMismatch(declaredAuxiliary!, carriedAuxiliary!));
    }

    // signatures: every vkey witness must verify against the body hash
    const bodyHash = hex.decode(id);
    const vkeys = listOf(witnesses.vkeywitnesses());
    const badSignatures = vkeys.filter((w) => !w.vkey().verify(bodyHash, w.ed25519_signature()));
    const bootstraps = listOf(witnesses.bootstrap_witnesses());
    const badBootstraps = bootstraps.filter((w) => !w.public_key().verify(bodyHash, w.signature()));
    if (badSignatures.length + badBootstraps.length > 0) {
      return fail(E.invalidSignatories([
        ...badSignatures.map((w) => hex.encode(w.vkey().to_raw_bytes())),
        ...badBootstraps.map((w) => hex.encode(w.public_key().to_raw_bytes())),
      ]));
    }
    const signedBy = new Set(vkeys.map((w) => w.vkey().hash().to_hex()));
    // a bootstrap witness signs for the Byron address whose root (the hash of key, chain code and attributes)
    // it rebuilds, as the ledger's bootstrapWitKeyHash does
    const bootstrapSigned = new Set(bootstraps.map((w) => w.to_address().address_id().to_hex()));

    // what must authorise the transaction
    const needs: Array<Need> = [];
    const sortedInputs = inLedgerOrder(inputs);
    const byronInputs: Array<string> = [];
    sortedInputs.forEach((input, index) => {
      const address = spent(input).address();
      if (address.kind() === CML.AddressKind.Byron) {
        byronInputs.push(CML.ByronAddress.from_address(address)!.content().address_id().to_hex());
        return;
      }
      const payment = address.payment_cred();
      if (payment) needs.push(credentialNeed(payment, { purpose: "spend", index }));
    });
    for (const c of collateral) {
      const payment = spent(c).address().payment_cred();
      if (payment?.as_pub_key()) needs.push({ key: payment.as_pub_key()!.to_hex() });
    }
    const mint = body.mint();
    const policies = listOf(mint?.keys()).map((h) => h.to_hex()).sort();
    policies.forEach((policy, index) => needs.push({ script: policy, purpose: { purpose: "mint", index } }));
    const sortedAccounts = accountsInLedgerOrder(withdrawalAccounts);
    sortedAccounts.forEach((account, index) =>
      needs.push(credentialNeed(account.payment(), { purpose: "withdraw", index }))
    );
    const certs = listOf(body.certs());
    certs.forEach((cert, index) => {
      const purpose = { purpose: "publish" as const, index };
      const stakeCredential = certificateCredential(cert);
      if (stakeCredential && cert.kind() !== CML.CertificateKind.StakeRegistration) {
        needs.push(credentialNeed(stakeCredential, purpose));
      }
      const pool = cert.as_pool_registration()?.pool_params();
      if (pool) {
        needs.push({ key: pool.operator().to_hex() });
        for (const owner of listOf(pool.pool_owners())) needs.push({ key: owner.to_hex() });
      }
      const retirement = cert.as_pool_retirement();
      if (retirement) needs.push({ key: retirement.pool().to_hex() });
      const governing = governanceCertificateCredential(cert);
      if (governing) needs.push(credentialNeed(governing, purpose));
    });
    // each voter signs for its votes; the vote redeemer index counts over the voters in the ledger's order
    const voters = votesOf(body);
    voters.forEach(({ voter }, index) =>
      needs.push(
        voter.role === "SPO"
          ? { key: voter.cred.hash }
          : credentialNeed(cmlCredential(voter.cred), { purpose: "vote", index }),
      )
    );
    // a proposal under a guardrails script runs it (propose purpose)
    const proposals = proposalsOf(body);
    for (const proposal of proposals) {
      if (proposal.policy) {
        needs.push({ script: proposal.policy, purpose: { purpose: "propose", index: proposal.index } });
      }
    }
    for (const k of listOf(body.required_signers())) needs.push({ key: k.to_hex() });

    // scripts available: witness set and reference scripts of spent and reference inputs
    const scripts = new Map<string, CML.Script>();
    for (const s of listOf(witnesses.native_scripts())) {
      scripts.set(s.hash().to_hex(), CML.Script.new_native(s));
    }
    for (const s of listOf(witnesses.plutus_v1_scripts())) {
      scripts.set(s.hash().to_hex(), CML.Script.new_plutus_v1(s));
    }
    for (const s of listOf(witnesses.plutus_v2_scripts())) {
      scripts.set(s.hash().to_hex(), CML.Script.new_plutus_v2(s));
    }
    for (const s of listOf(witnesses.plutus_v3_scripts())) {
      scripts.set(s.hash().to_hex(), CML.Script.new_plutus_v3(s));
    }
    const witnessScripts = new Set(scripts.keys());
    // Plutus scripts of the witnesses and of new outputs' script references must deserialise (MalformedScripts)
    const newOutputs = [...outputs, ...(collateralReturn ? [collateralReturn] : [])];
    const malformed = [...scripts.values(), ...newOutputs.flatMap((o) => o.script_ref() ?? [])]
      .filter((s) =>
        s.kind() !== CML.ScriptKind.Native &&
        !plutusScriptWellFormed(
          plutusScriptBytes(s)!,
          scriptLanguage(s) as PlutusLanguage,
          p.row.protocolMajor,
        )
      )
      .map((s) => s.hash().to_hex());
    if (malformed.length > 0) return fail(E.malformedScripts([...new Set(malformed)]));
    for (const i of [...inputs, ...referenceInputs]) {
      const script = spent(i).script_ref();
      if (script && !scripts.has(script.hash().to_hex())) scripts.set(script.hash().to_hex(), script);
    }
    const neededScripts = [...new Set(needs.flatMap((n) => (n.script ? [n.script] : [])))];
    const missing = neededScripts.filter((h) => !scripts.has(h));
    if (missing.length > 0) return fail(E.missingScripts(missing));
    const extraneous = [...witnessScripts].filter((h) => !neededScripts.includes(h));
    if (extraneous.length > 0) return fail(E.extraneousScripts(extraneous));

    // native scripts evaluate against the signatures and the validity interval
    const signerList = CML.Ed25519KeyHashList.new();
    for (const k of signedBy) signerList.add(CML.Ed25519KeyHash.from_hex(k));
    const failingNative = neededScripts.filter((h) => {
      const native = scripts.get(h)!.as_native();
      return native !== undefined && !native.verify(start, ttl, signerList);
    });
    if (failingNative.length > 0) return fail(E.failingNativeScripts(failingNative));

    const missingKeys = [...new Set(needs.flatMap((n) => (n.key && !signedBy.has(n.key) ? [n.key] : [])))];
    if (missingKeys.length > 0) return fail(E.missingSignatories(missingKeys));
    const unsignedByron = [...new Set(byronInputs.filter((root) => !bootstrapSigned.has(root)))];
    if (unsignedByron.length > 0) return fail(E.missingSignatories(unsignedByron));

    // Plutus: every Plutus purpose has a redeemer, every redeemer a purpose; datums for datum-hash inputs
    const plutusNeeds = needs.filter((n) =>
      n.script && scripts.get(n.script)!.kind() !== CML.ScriptKind.Native
    );
    const redeemers = redeemerEntries(witnesses.redeemers());
    const pointer = (x: { purpose: Purpose; index: number }) => `${x.purpose}:${x.index}`;
    const redeemerSet = new Set(redeemers.map(pointer));
    const neededPointers = new Set(plutusNeeds.map((n) => pointer(n.purpose!)));
    const missingRedeemers = plutusNeeds.filter((n) => !redeemerSet.has(pointer(n.purpose!)));
    if (missingRedeemers.length > 0) {
      return fail(E.missingRedeemers(missingRedeemers.map((n) => {
        const { purpose, index } = n.purpose!;
        if (purpose === "spend") return { purpose, outputReference: inputRef(sortedInputs[index]!) };
        if (purpose === "mint") return { purpose, policy: n.script };
        if (purpose === "withdraw") {
          return { purpose, rewardAccount: sortedAccounts[index]!.to_address().to_bech32() };
        }
        if (purpose === "vote") return { purpose, issuer: ogmiosVoter(voters[index]!.voter) };
        if (purpose === "publish") return { purpose, certificate: ogmiosCertificate(certs[index]!) };
        if (purpose === "propose") {
          const p = proposals[index]!;
          return {
            purpose,
            proposal: ogmiosProposal({
              deposit: p.deposit,
              returnAccount: p.returnAccount.to_address().to_bech32(),
              anchor: p.anchor,
              description: dbSyncDescription(p),
            }),
          };
        }
        return { purpose, index };
      })));
    }
    const extraRedeemers = redeemers.filter((r) => !neededPointers.has(pointer(r)));
    if (extraRedeemers.length > 0) {
      return fail(E.extraneousRedeemers(extraRedeemers.map((r) => ({ purpose: r.purpose, index: r.index }))));
    }
    const witnessDatums = listOf(witnesses.plutus_datums());
    const datumHashes = new Set(witnessDatums.map((d) => CML.hash_plutus_data(d).to_hex()));
    const plutusSpends = plutusNeeds.filter((n) => n.purpose!.purpose === "spend");
    // a Plutus V1/V2 output without a datum can never be spent (UnspendableUTxONoDatumHash); V3 needs none
    const orphans = plutusSpends
      .filter((n) =>
        spent(sortedInputs[n.purpose!.index]!).datum() === undefined &&
        scripts.get(n.script!)!.kind() !== CML.ScriptKind.PlutusV3
      )
      .map((n) => inputRef(sortedInputs[n.purpose!.index]!));
    if (orphans.length > 0) return fail(E.orphanScriptInputs(orphans));
    const neededDatums = new Set(
      plutusSpends.flatMap((n) => spent(sortedInputs[n.purpose!.index]!).datum()?.as_hash()?.to_hex() ?? []),
    );
    const missingDatums = [...neededDatums].filter((h) => !datumHashes.has(h));
    if (missingDatums.length > 0) return fail(E.missingDatums(missingDatums));
    // other witness datums must be the hash of a new output's or a reference input's datum (Babbage's
    // NotAllowedSupplementalDatums)
    const supplemental = new Set(
      [...newOutputs, ...referenceInputs.map(spent)].flatMap((o) => o.datum()?.as_hash()?.to_hex() ?? []),
    );
    const extraDatums = [...datumHashes].filter((h) => !neededDatums.has(h) && !supplemental.has(h));
    if (extraDatums.length > 0) return fail(E.extraneousDatums(extraDatums));

    // script integrity hash: redeemers, datums and the cost models of the Plutus languages used
    const languages = [...new Set(plutusNeeds.map((n) => scripts.get(n.script!)!.language()!))];
    const missingModels = languages.filter((l) => p.costModels.inner().get(BigInt(l)) === undefined);
    if (missingModels.length > 0) {
      return fail(E.missingCostModels(missingModels.map((l) => ["plutus:v1", "plutus:v2", "plutus:v3"][l]!)));
    }
    const provided = body.script_data_hash()?.to_hex() ?? null;
    const computed = scriptIntegrityHash(witnessSetBytes(decoded.bytes), languages, p.costModels);
    if (provided !== computed) return fail(E.scriptIntegrityHashMismatch(provided, computed));

    // fee
    const minFee = ledgerMinFee(tx, p, referenceScriptSize);
    const fee = body.fee();
    if (fee < minFee) return fail(E.transactionFeeTooSmall(minFee, fee));

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

    // value conservation (ValueNotConserved / InsufficientFunds)
    const consumed = emptyBalance();
    for (const i of inputs) addCmlValue(consumed, spent(i).amount());
    for (const account of withdrawalAccounts) consumed.lovelace += withdrawals!.get(account)!;
    consumed.lovelace += refunds;
    const produced = emptyBalance();
    for (const o of outputs) addCmlValue(produced, o.amount());
    produced.lovelace += fee + deposits + (body.donation() ?? 0n);
    addMint(consumed, produced, mint);
    if (!sameBalance(consumed, produced)) {
      return fail(E.valueNotConserved(
        toOgmiosValue(consumed),
        toOgmiosValue(produced),
        consumed.lovelace < produced.lovelace,
      ));
    }

    // every output pays for the space it takes (min-UTxO), and none is too large
    const underfunded = [...outputs, ...(collateralReturn ? [collateralReturn] : [])]
      .map((o) => ({ o, minimum: CML.min_ada_required(o, p.coinsPerUtxoByte) }))
      .filter(({ o, minimum }) => o.amount().coin() < minimum);
    if (underfunded.length > 0) {
      return fail(E.insufficientlyFundedOutputs(
        underfunded.map(({ o, minimum }) => ({ output: ogmiosOutput(o), minimumRequiredValue: minimum })),
      ));
    }
    const tooLarge = outputs.filter((o) => o.amount().to_cbor_bytes().length > p.maxValueSize);
    if (tooLarge.length > 0) return fail(E.valueTooLarge(tooLarge.map(ogmiosOutput)));
    const bulkyByron = newOutputs.filter((o) =>
      bootstrapAttributesSize(o.address()) > maxBootstrapAttributesSize
    );
    if (bulkyByron.length > 0) return fail(E.bootstrapAttributesTooLarge(bulkyByron.map(ogmiosOutput)));

    // collateral, when Plutus scripts run
    const runsPlutus = redeemers.length > 0;
    if (runsPlutus) {
      if (collateral.length === 0) return fail(E.missingCollateralInputs());
      if (collateral.length > p.maxCollateralInputs) {
        return fail(E.tooManyCollateralInputs(p.maxCollateralInputs, collateral.length));
      }
      const locked = collateral.filter((c) => spent(c).address().payment_cred()?.as_script() !== undefined);
      if (locked.length > 0) return fail(E.collateralLockedByScript(locked.map(inputRef)));
      const net = emptyBalance();
      for (const c of collateral) addCmlValue(net, spent(c).amount());
      if (collateralReturn) addCmlValue(net, collateralReturn.amount(), -1n);
      const required = (fee * p.collateralPercent + 99n) / 100n;
      if (net.lovelace < required) return fail(E.insufficientCollateral(net.lovelace, required));
      if (net.assets.size > 0) return fail(E.nonAdaCollateral(toOgmiosValue(net)));
      const declared = body.total_collateral();
      if (declared !== undefined && declared !== net.lovelace) {
        return fail(E.totalCollateralMismatch(declared, net.lovelace));
      }
      const mem = redeemers.reduce((s, r) => s + r.mem, 0n);
      const steps = redeemers.reduce((s, r) => s + r.steps, 0n);
      if (mem > p.maxTxExMem || steps > p.maxTxExSteps) {
        return fail(E.executionUnitsTooLarge(
          { memory: mem, cpu: steps },
          { memory: p.maxTxExMem, cpu: p.maxTxExSteps },
        ));
      }
    }

    return Either.right({
      ...decoded,
      size,
      resolved,
      fee,
      deposit: deposits - refunds,
      runsPlutus,
      stakeRegistration,
      withdrawn,
      poolsRegistered,
      referenceScriptSize,
      governance,
    });
  });
