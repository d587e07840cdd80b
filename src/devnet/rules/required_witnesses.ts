/**
 * What must authorise a transaction (the ledger's witsVKeyNeeded and scriptsNeeded): the payment credential of
 * each spent input (Byron inputs by their address root), key-locked collateral, minting policies, withdrawing
 * accounts, certificates' credentials, pool operators and owners, voters, guardrails scripts of proposals and
 * required signers. Script needs carry their redeemer pointer, counted in the ledger's orders.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { listOf } from "../decoding/cml_conversions.ts";
import {
  accountsInLedgerOrder,
  certificateCredential,
  governanceCertificateCredential,
  inLedgerOrder,
} from "../decoding/tx_parts.ts";
import type * as E from "../errors.ts";
import {
  cmlCredential,
  type ProposalPart,
  proposalsOf,
  type VoterVotes,
  votesOf,
} from "../governance/parts.ts";
import type { Phase1Tx } from "./phase1_tx.ts";

export type Purpose = E.RedeemerPointer["purpose"];
export interface Pointer {
  readonly purpose: Purpose;
  readonly index: number;
}

/** A credential the transaction must be authorised by: a key (signature) or a script (witness + maybe redeemer). */
export interface Need {
  readonly key?: string;
  readonly script?: string;
  readonly purpose?: Pointer;
}

/** The needs with the ledger-ordered lists their redeemer pointers index into. */
export interface RequiredWitnesses {
  readonly needs: ReadonlyArray<Need>;
  readonly sortedInputs: ReadonlyArray<CML.TransactionInput>;
  /** Address roots of spent Byron inputs: a bootstrap witness must rebuild each. */
  readonly byronRoots: ReadonlyArray<string>;
  readonly sortedAccounts: ReadonlyArray<CML.RewardAddress>;
  readonly certs: ReadonlyArray<CML.Certificate>;
  readonly voters: ReadonlyArray<VoterVotes>;
  readonly proposals: ReadonlyArray<ProposalPart>;
}

const credentialNeed = (c: CML.Credential, purpose?: Pointer): Need =>
  c.as_pub_key() ? { key: c.as_pub_key()!.to_hex() } : { script: c.as_script()!.to_hex(), purpose };

const certificateNeeds = (cert: CML.Certificate, index: number): Array<Need> => {
  const needs: Array<Need> = [];
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
  return needs;
};

export const requiredWitnesses = (t: Phase1Tx): RequiredWitnesses => {
  const needs: Array<Need> = [];
  const sortedInputs = inLedgerOrder(t.inputs);
  const byronRoots: Array<string> = [];
  sortedInputs.forEach((input, index) => {
    const address = t.spent(input).address();
    if (address.kind() === CML.AddressKind.Byron) {
      byronRoots.push(CML.ByronAddress.from_address(address)!.content().address_id().to_hex());
      return;
    }
    const payment = address.payment_cred();
    if (payment) needs.push(credentialNeed(payment, { purpose: "spend", index }));
  });
  for (const c of t.collateral) {
    const payment = t.spent(c).address().payment_cred();
    if (payment?.as_pub_key()) needs.push({ key: payment.as_pub_key()!.to_hex() });
  }
  const policies = listOf(t.body.mint()?.keys()).map((h) => h.to_hex()).sort();
  policies.forEach((policy, index) => needs.push({ script: policy, purpose: { purpose: "mint", index } }));
  const sortedAccounts = accountsInLedgerOrder(t.withdrawalAccounts);
  sortedAccounts.forEach((account, index) =>
    needs.push(credentialNeed(account.payment(), { purpose: "withdraw", index }))
  );
  const certs = listOf(t.body.certs());
  certs.forEach((cert, index) => needs.push(...certificateNeeds(cert, index)));
  // each voter signs for its votes; the vote redeemer index counts over the voters in the ledger's order
  const voters = votesOf(t.body);
  voters.forEach(({ voter }, index) =>
    needs.push(
      voter.role === "SPO"
        ? { key: voter.cred.hash }
        : credentialNeed(cmlCredential(voter.cred), { purpose: "vote", index }),
    )
  );
  // a proposal under a guardrails script runs it (propose purpose)
  const proposals = proposalsOf(t.body);
  for (const proposal of proposals) {
    if (proposal.policy) {
      needs.push({ script: proposal.policy, purpose: { purpose: "propose", index: proposal.index } });
    }
  }
  for (const k of listOf(t.body.required_signers())) needs.push({ key: k.to_hex() });
  return { needs, sortedInputs, byronRoots, sortedAccounts, certs, voters, proposals };
};

/** The scripts of the witness set, by hash. */
export const witnessScripts = (witnesses: CML.TransactionWitnessSet): Map<string, CML.Script> => {
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
  return scripts;
};

/** The witness set's scripts plus the reference scripts of spent and reference inputs. */
export const availableScripts = (
  t: Phase1Tx,
  witnessed: ReadonlyMap<string, CML.Script>,
): Map<string, CML.Script> => {
  const scripts = new Map(witnessed);
  for (const i of [...t.inputs, ...t.referenceInputs]) {
    const script = t.spent(i).script_ref();
    if (script && !scripts.has(script.hash().to_hex())) scripts.set(script.hash().to_hex(), script);
  }
  return scripts;
};
