/**
 * A transaction's proposals and votes as db-sync writes them at submission: gov_action_proposal (its anchor in
 * voting_anchor, expiration = epoch + govActionLifetime + 1, the action's JSON), with treasury_withdrawal rows,
 * a param_proposal, the committee the proposal would make (committee, committee_member) or the constitution it
 * proposes; then voting_procedure rows, numbered per voter, with their anchors.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import type { Lookups } from "../rows/chain_lookups.ts";
import { dbSyncDescription } from "./action_json.ts";
import { type Cred, credFromKey, credKey, type ProposalPart, proposalsOf, votesOf } from "./parts.ts";
import type { AcceptedTx } from "../rules/phase1.ts";
import { type RowWriter, text } from "../rows/row_writer.ts";

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

const drepOf = (c: Cred) =>
  c.script
    ? CML.DRep.new_script(CML.ScriptHash.from_hex(c.hash))
    : CML.DRep.new_key(CML.Ed25519KeyHash.from_hex(c.hash));

/** Members (cold credential key → expiration) of the committee in force, or of the one a proposal makes. */
const committeeMembers = (w: RowWriter, proposalId: number | null) =>
  Effect.map(
    w.sql<{ raw: string; script: boolean; expiration: number }>`
      select encode(h.raw, 'hex') as raw, h.has_script as script, m.expiration_epoch as expiration
      from committee_member m join committee_hash h on h.id = m.committee_hash_id
      where m.committee_id = ${
      proposalId === null
        ? w.sql`(select committee_id from epoch_state order by epoch_no desc, id desc limit 1)`
        : w
          .sql`(select id from committee where gov_action_proposal_id = ${proposalId} order by id desc limit 1)`
    }`,
    (rows) => new Map(rows.map((r) => [credKey({ hash: r.raw, script: r.script }), r.expiration])),
  );

/** The committee an UpdateCommittee makes: its ancestor's (or the one in force), less removed, plus added. */
const writeProposedCommittee = (
  w: RowWriter,
  lookups: Lookups,
  proposal: ProposalPart,
  proposalId: number,
): Effect.Effect<void, SqlError> =>
  Effect.gen(function* () {
    const change = proposal.committee!;
    let members = new Map<string, number>();
    const parent = proposal.prev ? yield* lookups.proposal(proposal.prev.tx, proposal.prev.index) : 0;
    const [parentType] = parent
      ? yield* w.sql<{ type: string; made: boolean }>`
          select type::text as type, exists (select 1 from committee where gov_action_proposal_id = ${parent}) as made
          from gov_action_proposal where id = ${parent}`
      : [];
    if (parentType?.made) members = yield* committeeMembers(w, parent);
    else if (parentType?.type !== "NoConfidence") members = yield* committeeMembers(w, null);
    for (const removed of change.removed) members.delete(credKey(removed));
    for (const a of change.added) members.set(credKey(a.cred), a.epoch);
    const g = gcd(change.quorum.numerator, change.quorum.denominator) || 1n;
    const committeeId = yield* w.add("committee", {
      gov_action_proposal_id: proposalId,
      quorum_numerator: text(change.quorum.numerator / g),
      quorum_denominator: text(change.quorum.denominator / g),
    });
    for (const [key, epoch] of [...members].sort(([a], [b]) => (a < b ? -1 : 1))) {
      yield* w.add("committee_member", {
        committee_id: committeeId,
        committee_hash_id: yield* lookups.committeeHash(credFromKey(key)),
        expiration_epoch: epoch,
      });
    }
  });

export const writeGovernance = (
  w: RowWriter,
  lookups: Lookups,
  accepted: AcceptedTx,
  at: { txId: number; blockId: number; epoch: number; govActionLifetime: number },
): Effect.Effect<void, SqlError> =>
  Effect.gen(function* () {
    const body = accepted.tx.body();
    for (const proposal of proposalsOf(body)) {
      const returnAddress = yield* lookups.stakeAddress(proposal.returnAccount.payment());
      const anchorId = yield* lookups.votingAnchor(proposal.anchor, "gov_action", at.blockId);
      const paramProposal = proposal.update
        ? yield* w.add("param_proposal", {
          registered_tx_id: at.txId,
          epoch_no: null,
          key: null,
          ...proposal.update.columns,
        })
        : null;
      const prev = proposal.prev ? yield* lookups.proposal(proposal.prev.tx, proposal.prev.index) : null;
      const id = yield* w.add("gov_action_proposal", {
        tx_id: at.txId,
        index: proposal.index,
        prev_gov_action_proposal: prev,
        deposit: text(proposal.deposit),
        return_address: returnAddress,
        expiration: at.epoch + at.govActionLifetime + 1,
        voting_anchor_id: anchorId,
        type: proposal.type,
        description: JSON.stringify(dbSyncDescription(proposal)),
        param_proposal: paramProposal,
        ratified_epoch: null,
        enacted_epoch: null,
        dropped_epoch: null,
        expired_epoch: null,
      });
      lookups.rememberProposal(accepted.id, proposal.index, id);
      for (const withdrawal of proposal.withdrawals) {
        yield* w.add("treasury_withdrawal", {
          gov_action_proposal_id: id,
          stake_address_id: yield* lookups.stakeAddress(withdrawal.account.payment()),
          amount: text(withdrawal.amount),
        });
      }
      if (proposal.committee) yield* writeProposedCommittee(w, lookups, proposal, id);
      if (proposal.constitution) {
        yield* w.add("constitution", {
          gov_action_proposal_id: id,
          voting_anchor_id: yield* lookups.votingAnchor(
            proposal.constitution.anchor,
            "constitution",
            at.blockId,
          ),
          script_hash: proposal.constitution.script ? w.bytea(proposal.constitution.script) : null,
        });
      }
    }
    for (const { voter, votes } of votesOf(body)) {
      const ids = voter.role === "SPO"
        ? { pool_voter: yield* lookups.poolHash(voter.cred.hash) }
        : voter.role === "DRep"
        ? { drep_voter: yield* lookups.drepHash(drepOf(voter.cred)) }
        : { committee_voter: yield* lookups.committeeHash(voter.cred) };
      for (let index = 0; index < votes.length; index++) {
        const v = votes[index]!;
        yield* w.add("voting_procedure", {
          tx_id: at.txId,
          index,
          gov_action_proposal_id: yield* lookups.proposal(v.action.tx, v.action.index),
          voter_role: voter.role,
          drep_voter: null,
          pool_voter: null,
          committee_voter: null,
          ...ids,
          vote: v.vote,
          voting_anchor_id: v.anchor ? yield* lookups.votingAnchor(v.anchor, "vote", at.blockId) : null,
          invalid: null,
        });
      }
    }
  });
