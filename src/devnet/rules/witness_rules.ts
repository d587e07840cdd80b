/**
 * The Conway UTXOW rule's checks (witnesses, scripts, datums, redeemers, metadata, script integrity), one small
 * function each naming the ledger's failure and Ogmios' code; each gives the failure or undefined.
 * rules/phase1.ts runs them in the node's order, so the same error wins when several apply.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { hex } from "@scure/base";
import { ogmiosProposal } from "@src/domain/ogmios_governance.ts";
import { inputRef, listOf, plutusScriptBytes, scriptLanguage } from "../decoding/cml_conversions.ts";
import { ogmiosCertificate } from "../decoding/ogmios_certificate.ts";
import type { redeemerEntries } from "../decoding/tx_parts.ts";
import * as E from "../errors.ts";
import { dbSyncDescription } from "../governance/action_json.ts";
import { ogmiosVoter } from "../governance/ogmios_references.ts";
import type { Phase1Tx } from "./phase1_tx.ts";
import { type PlutusLanguage, plutusScriptWellFormed } from "./plutus_wellformed.ts";
import type { Need, Pointer, RequiredWitnesses } from "./required_witnesses.ts";
import { scriptIntegrityHash, witnessSetBytes } from "./script_integrity.ts";

type Failure = E.OgmiosError | undefined;
type RedeemerEntry = ReturnType<typeof redeemerEntries>[number];

/** MissingTxBodyMetadataHash (3105), MissingTxMetadata (3106), ConflictingMetadataHash (3107). */
export const metadataHashMatches = (t: Phase1Tx): Failure => {
  const auxiliary = t.tx.auxiliary_data();
  const declared = t.body.auxiliary_data_hash()?.to_hex();
  const carried = auxiliary ? CML.hash_auxiliary_data(auxiliary).to_hex() : undefined;
  if (carried && !declared) return E.missingMetadataHash(carried);
  if (declared && !carried) return E.missingMetadata(declared);
  if (declared !== carried) return E.metadataHashMismatch(declared!, carried!);
  return undefined;
};

/** InvalidWitnessesUTXOW (3100): every vkey and bootstrap witness verifies against the body hash. */
export const signaturesVerify = (t: Phase1Tx): Failure => {
  const bodyHash = hex.decode(t.id);
  const badSignatures = listOf(t.witnesses.vkeywitnesses())
    .filter((w) => !w.vkey().verify(bodyHash, w.ed25519_signature()));
  const badBootstraps = listOf(t.witnesses.bootstrap_witnesses())
    .filter((w) => !w.public_key().verify(bodyHash, w.signature()));
  if (badSignatures.length + badBootstraps.length === 0) return undefined;
  return E.invalidSignatories([
    ...badSignatures.map((w) => hex.encode(w.vkey().to_raw_bytes())),
    ...badBootstraps.map((w) => hex.encode(w.public_key().to_raw_bytes())),
  ]);
};

/** MalformedScriptWitnesses / MalformedReferenceScripts (3116): witness and new outputs' Plutus scripts deserialise. */
export const scriptsWellFormed = (t: Phase1Tx, witnessed: ReadonlyMap<string, CML.Script>): Failure => {
  const malformed = [...witnessed.values(), ...t.newOutputs.flatMap((o) => o.script_ref() ?? [])]
    .filter((s) =>
      s.kind() !== CML.ScriptKind.Native &&
      !plutusScriptWellFormed(
        plutusScriptBytes(s)!,
        scriptLanguage(s) as PlutusLanguage,
        t.params.row.protocolMajor,
      )
    )
    .map((s) => s.hash().to_hex());
  return malformed.length > 0 ? E.malformedScripts([...new Set(malformed)]) : undefined;
};

/** The script hashes the transaction needs, each once. */
export const neededScripts = (needs: ReadonlyArray<Need>): Array<string> => [
  ...new Set(needs.flatMap((n) => (n.script ? [n.script] : []))),
];

/** MissingScriptWitnessesUTXOW (3102), ExtraneousScriptWitnessesUTXOW (3104). */
export const scriptsMatchNeeds = (
  needed: ReadonlyArray<string>,
  available: ReadonlyMap<string, CML.Script>,
  witnessed: ReadonlyMap<string, CML.Script>,
): Failure => {
  const missing = needed.filter((h) => !available.has(h));
  if (missing.length > 0) return E.missingScripts(missing);
  const extraneous = [...witnessed.keys()].filter((h) => !needed.includes(h));
  return extraneous.length > 0 ? E.extraneousScripts(extraneous) : undefined;
};

/** The key hashes the vkey witnesses sign for. */
export const signedKeys = (t: Phase1Tx): Set<string> =>
  new Set(listOf(t.witnesses.vkeywitnesses()).map((w) => w.vkey().hash().to_hex()));

/** ScriptWitnessNotValidatingUTXOW (3103): native scripts against the signatures and the validity interval. */
export const nativeScriptsPass = (
  t: Phase1Tx,
  needed: ReadonlyArray<string>,
  available: ReadonlyMap<string, CML.Script>,
  signedBy: ReadonlySet<string>,
): Failure => {
  const signerList = CML.Ed25519KeyHashList.new();
  for (const k of signedBy) signerList.add(CML.Ed25519KeyHash.from_hex(k));
  const start = t.body.validity_interval_start();
  const ttl = t.body.ttl();
  const failing = needed.filter((h) => {
    const native = available.get(h)!.as_native();
    return native !== undefined && !native.verify(start, ttl, signerList);
  });
  return failing.length > 0 ? E.failingNativeScripts(failing) : undefined;
};

/**
 * MissingVKeyWitnessesUTXOW (3101): every needed key signed, then every Byron input's address root rebuilt by a
 * bootstrap witness (the ledger's bootstrapWitKeyHash: the hash of key, chain code and attributes).
 */
export const signatoriesPresent = (
  t: Phase1Tx,
  w: RequiredWitnesses,
  signedBy: ReadonlySet<string>,
): Failure => {
  const missingKeys = [...new Set(w.needs.flatMap((n) => (n.key && !signedBy.has(n.key) ? [n.key] : [])))];
  if (missingKeys.length > 0) return E.missingSignatories(missingKeys);
  const bootstrapSigned = new Set(
    listOf(t.witnesses.bootstrap_witnesses()).map((b) => b.to_address().address_id().to_hex()),
  );
  const unsignedByron = [...new Set(w.byronRoots.filter((root) => !bootstrapSigned.has(root)))];
  return unsignedByron.length > 0 ? E.missingSignatories(unsignedByron) : undefined;
};

const pointerKey = (x: Pointer) => `${x.purpose}:${x.index}`;

/** A missing redeemer's purpose in Ogmios' shape (what it would have been for). */
const ogmiosPurpose = (n: Need, w: RequiredWitnesses) => {
  const { purpose, index } = n.purpose!;
  if (purpose === "spend") return { purpose, outputReference: inputRef(w.sortedInputs[index]!) };
  if (purpose === "mint") return { purpose, policy: n.script };
  if (purpose === "withdraw") {
    return { purpose, rewardAccount: w.sortedAccounts[index]!.to_address().to_bech32() };
  }
  if (purpose === "vote") return { purpose, issuer: ogmiosVoter(w.voters[index]!.voter) };
  if (purpose === "publish") return { purpose, certificate: ogmiosCertificate(w.certs[index]!) };
  if (purpose === "propose") {
    const p = w.proposals[index]!;
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
};

/** MissingRedeemers (3109): every Plutus purpose has a redeemer; ExtraRedeemers (3110): every redeemer a purpose. */
export const redeemersMatchPurposes = (
  plutusNeeds: ReadonlyArray<Need>,
  redeemers: ReadonlyArray<RedeemerEntry>,
  w: RequiredWitnesses,
): Failure => {
  const redeemerSet = new Set(redeemers.map(pointerKey));
  const missing = plutusNeeds.filter((n) => !redeemerSet.has(pointerKey(n.purpose!)));
  if (missing.length > 0) return E.missingRedeemers(missing.map((n) => ogmiosPurpose(n, w)));
  const neededPointers = new Set(plutusNeeds.map((n) => pointerKey(n.purpose!)));
  const extra = redeemers.filter((r) => !neededPointers.has(pointerKey(r)));
  return extra.length > 0
    ? E.extraneousRedeemers(extra.map((r) => ({ purpose: r.purpose, index: r.index })))
    : undefined;
};

/**
 * Datums of Plutus spends: UnspendableUTxONoDatumHash (3114, a V1/V2-locked output without a datum; V3 needs
 * none), MissingRequiredDatums (3111), NotAllowedSupplementalDatums (3112: other witness datums must be the
 * hash of a new output's or a reference input's datum), in that order.
 */
export const datumsMatchSpends = (
  t: Phase1Tx,
  plutusNeeds: ReadonlyArray<Need>,
  available: ReadonlyMap<string, CML.Script>,
  w: RequiredWitnesses,
): Failure => {
  const spentBy = (n: Need) => t.spent(w.sortedInputs[n.purpose!.index]!);
  const datumHashes = new Set(
    listOf(t.witnesses.plutus_datums()).map((d) => CML.hash_plutus_data(d).to_hex()),
  );
  const plutusSpends = plutusNeeds.filter((n) => n.purpose!.purpose === "spend");
  const orphans = plutusSpends
    .filter((n) =>
      spentBy(n).datum() === undefined && available.get(n.script!)!.kind() !== CML.ScriptKind.PlutusV3
    )
    .map((n) => inputRef(w.sortedInputs[n.purpose!.index]!));
  if (orphans.length > 0) return E.orphanScriptInputs(orphans);
  const neededDatums = new Set(plutusSpends.flatMap((n) => spentBy(n).datum()?.as_hash()?.to_hex() ?? []));
  const missing = [...neededDatums].filter((h) => !datumHashes.has(h));
  if (missing.length > 0) return E.missingDatums(missing);
  const supplemental = new Set(
    [...t.newOutputs, ...t.referenceInputs.map(t.spent)].flatMap((o) => o.datum()?.as_hash()?.to_hex() ?? []),
  );
  const extra = [...datumHashes].filter((h) => !neededDatums.has(h) && !supplemental.has(h));
  return extra.length > 0 ? E.extraneousDatums(extra) : undefined;
};

/**
 * PPViewHashesDontMatch: the cost models of the Plutus languages used exist (3115), then the script integrity
 * hash over redeemers, datums and those languages' views matches the body's (3113).
 */
export const scriptIntegrityMatches = (
  t: Phase1Tx,
  plutusNeeds: ReadonlyArray<Need>,
  available: ReadonlyMap<string, CML.Script>,
): Failure => {
  const languages = [...new Set(plutusNeeds.map((n) => available.get(n.script!)!.language()!))];
  const missingModels = languages.filter((l) => t.params.costModels.inner().get(BigInt(l)) === undefined);
  if (missingModels.length > 0) {
    return E.missingCostModels(missingModels.map((l) => ["plutus:v1", "plutus:v2", "plutus:v3"][l]!));
  }
  const provided = t.body.script_data_hash()?.to_hex() ?? null;
  const computed = scriptIntegrityHash(witnessSetBytes(t.decoded.bytes), languages, t.params.costModels);
  return provided !== computed ? E.scriptIntegrityHashMismatch(provided, computed) : undefined;
};
