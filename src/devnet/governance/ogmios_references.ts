/**
 * Governance parties and proposals as Ogmios names them in its errors: a committee member or DRep by credential
 * (MemberReference), a voter by role, a proposal by its transaction and index.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type * as E from "../errors.ts";
import type { ActionId, Cred, VoterRef } from "./parts.ts";

export const member = (c: Cred): E.MemberReference => ({
  id: c.hash,
  from: c.script ? "script" : "verificationKey",
});

export const ogmiosVoter = (v: VoterRef): E.GovernanceVoter =>
  v.role === "SPO"
    ? { role: "stakePoolOperator", id: CML.Ed25519KeyHash.from_hex(v.cred.hash).to_bech32("pool") }
    : { role: v.role === "DRep" ? "delegateRepresentative" : "constitutionalCommittee", ...member(v.cred) };

export const proposalReference = (a: ActionId): E.ProposalReference => ({
  transaction: { id: a.tx },
  index: a.index,
});
