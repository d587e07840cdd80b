/**
 * A certificate as Ogmios v6 names it in a `publish` script purpose (cardano.json Certificate): for Conway's
 * combined certificates the delegation part, as Ogmios picks it; the governance ones with their DRep, member and
 * anchor. Pool certificates, which never run scripts, give their pool only.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { anchorOf, credOf } from "../governance/parts.ts";

const credential = (c: CML.Credential) => {
  const x = credOf(c);
  return { credential: x.hash, from: x.script ? "script" : "verificationKey" };
};

const member = (c: CML.Credential) => {
  const x = credOf(c);
  return { id: x.hash, from: x.script ? "script" : "verificationKey" };
};

const drep = (d: CML.DRep) =>
  d.kind() === CML.DRepKind.AlwaysAbstain
    ? { type: "abstain" }
    : d.kind() === CML.DRepKind.AlwaysNoConfidence
    ? { type: "noConfidence" }
    : {
      type: "registered",
      ...member(
        d.as_key() ? CML.Credential.new_pub_key(d.as_key()!) : CML.Credential.new_script(d.as_script()!),
      ),
    };

const lovelace = (n: bigint) => ({ ada: { lovelace: n } });

export const ogmiosCertificate = (cert: CML.Certificate): unknown => {
  const delegation = cert.as_stake_delegation() ?? cert.as_vote_deleg_cert() ??
    cert.as_stake_vote_deleg_cert() ??
    cert.as_stake_reg_deleg_cert() ?? cert.as_vote_reg_deleg_cert() ?? cert.as_stake_vote_reg_deleg_cert();
  if (delegation) {
    const pool =
      (cert.as_stake_delegation() ?? cert.as_stake_vote_deleg_cert() ?? cert.as_stake_reg_deleg_cert() ??
        cert.as_stake_vote_reg_deleg_cert())?.pool();
    const target =
      (cert.as_vote_deleg_cert() ?? cert.as_stake_vote_deleg_cert() ?? cert.as_vote_reg_deleg_cert() ??
        cert.as_stake_vote_reg_deleg_cert())?.d_rep();
    return {
      type: "stakeDelegation",
      ...credential(delegation.stake_credential()),
      ...(pool ? { stakePool: { id: pool.to_bech32("pool") } } : {}),
      ...(target ? { delegateRepresentative: drep(target) } : {}),
    };
  }
  const registration = cert.as_stake_registration() ?? cert.as_reg_cert();
  if (registration) {
    return {
      type: "stakeCredentialRegistration",
      ...credential(registration.stake_credential()),
      ...(cert.as_reg_cert() ? { deposit: lovelace(cert.as_reg_cert()!.deposit()) } : {}),
    };
  }
  const deregistration = cert.as_stake_deregistration() ?? cert.as_unreg_cert();
  if (deregistration) {
    return {
      type: "stakeCredentialDeregistration",
      ...credential(deregistration.stake_credential()),
      ...(cert.as_unreg_cert() ? { deposit: lovelace(cert.as_unreg_cert()!.deposit()) } : {}),
    };
  }
  const reg = cert.as_reg_drep_cert();
  if (reg) {
    const anchor = reg.anchor();
    return {
      type: "delegateRepresentativeRegistration",
      delegateRepresentative: { type: "registered", ...member(reg.drep_credential()) },
      deposit: lovelace(reg.deposit()),
      ...(anchor ? { metadata: anchorOf(anchor) } : {}),
    };
  }
  const update = cert.as_update_drep_cert();
  if (update) {
    const anchor = update.anchor();
    return {
      type: "delegateRepresentativeUpdate",
      delegateRepresentative: { type: "registered", ...member(update.drep_credential()) },
      metadata: anchor ? anchorOf(anchor) : null,
    };
  }
  const unreg = cert.as_unreg_drep_cert();
  if (unreg) {
    return {
      type: "delegateRepresentativeRetirement",
      delegateRepresentative: { type: "registered", ...member(unreg.drep_credential()) },
      deposit: lovelace(unreg.deposit()),
    };
  }
  const auth = cert.as_auth_committee_hot_cert();
  if (auth) {
    return {
      type: "constitutionalCommitteeDelegation",
      member: member(auth.committee_cold_credential()),
      delegate: { status: "authorized", ...member(auth.committee_hot_credential()) },
    };
  }
  const resign = cert.as_resign_committee_cold_cert();
  if (resign) {
    const anchor = resign.anchor();
    return {
      type: "constitutionalCommitteeRetirement",
      member: member(resign.committee_cold_credential()),
      ...(anchor ? { metadata: anchorOf(anchor) } : {}),
    };
  }
  const retirement = cert.as_pool_retirement();
  if (retirement) {
    return {
      type: "stakePoolRetirement",
      stakePool: { id: retirement.pool().to_bech32("pool"), retirementEpoch: Number(retirement.epoch()) },
    };
  }
  return { type: "stakePoolRegistration", stakePool: {} };
};
