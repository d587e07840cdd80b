/**
 * Conway governance pieces for the devnet tests, built with CML: test keys and their credentials, anchors,
 * certificate lists, proposals, and voting procedures, so a test writes the governance part of a transaction in
 * one line and breaks one rule on purpose; and a genesis committee for a chain that has none.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { SqlClient } from "@effect/sql/SqlClient";
import { Effect } from "effect";

export const key = (byte: number) => CML.PrivateKey.from_normal_bytes(new Uint8Array(32).fill(byte));
export const credential = (k: CML.PrivateKey) => CML.Credential.new_pub_key(k.to_public().hash());
export const rewardAddress = (k: CML.PrivateKey, networkId = 1) =>
  CML.RewardAddress.new(networkId, credential(k));
export const keyHash = (k: CML.PrivateKey) => k.to_public().hash().to_hex();

export const anchor = (url: string, byte = 7) =>
  CML.Anchor.new(
    CML.Url.from_json(JSON.stringify(url)),
    CML.AnchorDocHash.from_raw_bytes(new Uint8Array(32).fill(byte)),
  );

export const certs = (...list: Array<CML.Certificate>) => (b: CML.TransactionBody) => {
  const l = CML.CertificateList.new();
  for (const c of list) l.add(c);
  b.set_certs(l);
};

export const proposal = (
  deposit: bigint,
  returnAccount: CML.RewardAddress,
  action: CML.GovAction,
  url = "https://gov.devnet.invalid/proposal.jsonld",
) => CML.ProposalProcedure.new(deposit, returnAccount, action, anchor(url, 9));

export const proposals = (...list: Array<CML.ProposalProcedure>) => (b: CML.TransactionBody) => {
  const l = CML.ProposalProcedureList.new();
  for (const p of list) l.add(p);
  b.set_proposal_procedures(l);
};

export const actionId = (txId: string, index = 0) =>
  CML.GovActionId.new(CML.TransactionHash.from_hex(txId), BigInt(index));

export type VoteChoice = "yes" | "no" | "abstain";

const voteOf: Record<VoteChoice, CML.Vote> = {
  yes: CML.Vote.Yes,
  no: CML.Vote.No,
  abstain: CML.Vote.Abstain,
};

/** Voting procedures: each voter's votes on action ids. */
export const votes = (
  ...list: Array<{ voter: CML.Voter; on: ReadonlyArray<[CML.GovActionId, VoteChoice]>; anchor?: CML.Anchor }>
) =>
(b: CML.TransactionBody) => {
  const procedures = CML.VotingProcedures.new();
  for (const { voter, on, anchor } of list) {
    const map = CML.MapGovActionIdToVotingProcedure.new();
    for (const [id, choice] of on) {
      // wasm arguments passed by value are moved: each procedure gets its own copy of the anchor
      const copy = anchor && CML.Anchor.from_cbor_bytes(anchor.to_cbor_bytes());
      map.insert(id, CML.VotingProcedure.new(voteOf[choice], copy));
    }
    procedures.insert(voter, map);
  }
  b.set_voting_procedures(procedures);
};

export const drepVoter = (k: CML.PrivateKey) => CML.Voter.new_d_rep_key_hash(k.to_public().hash());
export const poolVoter = (k: CML.PrivateKey) => CML.Voter.new_staking_pool_key_hash(k.to_public().hash());
export const committeeVoter = (k: CML.PrivateKey) =>
  CML.Voter.new_constitutional_committee_hot_key_hash(k.to_public().hash());

/** Several body edits in one. */
export const all = (...edits: Array<(b: CML.TransactionBody) => void>) => (b: CML.TransactionBody) => {
  for (const e of edits) e(b);
};

/**
 * A constitutional committee as db-sync records one named by the Conway genesis (committee without a proposal,
 * its members, and the epoch's epoch_state pointing at it): the demo chain has none, and its stake pools hold more
 * stake than the test can ever gather, so no committee can be elected on it through governance.
 */
export const seedGenesisCommittee = (
  sql: SqlClient,
  o: { members: ReadonlyArray<CML.PrivateKey>; expiration: number; epoch: number; quorum: [bigint, bigint] },
) =>
  sql.withTransaction(
    Effect.gen(function* () {
      const [committee] = yield* sql<{ id: string }>`
        insert into committee (id, gov_action_proposal_id, quorum_numerator, quorum_denominator)
        values ((select coalesce(max(id), 0) + 1 from committee), null, ${String(o.quorum[0])},
          ${String(o.quorum[1])})
        returning id::text as id`;
      for (const m of o.members) {
        const [hash] = yield* sql<{ id: string }>`
          insert into committee_hash (id, raw, has_script)
          values ((select coalesce(max(id), 0) + 1 from committee_hash), decode(${keyHash(m)}, 'hex'), false)
          returning id::text as id`;
        yield* sql`
          insert into committee_member (id, committee_id, committee_hash_id, expiration_epoch)
          values ((select coalesce(max(id), 0) + 1 from committee_member), ${Number(committee!.id)},
            ${Number(hash!.id)}, ${o.expiration})`;
      }
      yield* sql`
        insert into epoch_state (id, committee_id, no_confidence_id, constitution_id, epoch_no)
        values ((select coalesce(max(id), 0) + 1 from epoch_state), ${
        Number(committee!.id)
      }, null, null, ${o.epoch})`;
    }),
  );
