/**
 * Conway's GOV rule for a transaction's votes, once its certificates and proposals applied, one small check
 * each in the ledger's order: voters registered (3167), proposals known (3138), not expired (3160), and voters
 * the action admits (3137). Each gives the failure or undefined.
 */
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import * as E from "../errors.ts";
import type { LedgerView } from "../rules/ledger_view.ts";
import { ogmiosVoter, proposalReference } from "./ogmios_references.ts";
import { actionKey, type Cred, credKey, type VoterRef, type VoterVotes } from "./parts.ts";
import type { DrepState, LiveProposal, MemberState } from "./view.ts";

type Failure = E.OgmiosError | undefined;

/** One vote on a live proposal. */
interface Cast {
  readonly voter: VoterRef;
  readonly proposal: LiveProposal;
}

/**
 * VotersDoNotExist (3167): a DRep registered, a pool known, a committee member's
 * current hot key (the certificates of this transaction included).
 */
const votersKnown = (
  voters: ReadonlyArray<VoterVotes>,
  view: LedgerView,
  certified: {
    readonly dreps: ReadonlyMap<string, DrepState>;
    readonly hot: ReadonlyMap<string, MemberState>;
  },
): Effect.Effect<Failure, SqlError> =>
  Effect.gen(function* () {
    const committee = yield* view.governance.committee;
    const hotKeys = new Set(
      [...committee.hot, ...certified.hot].flatMap(([, s]) => (s === "resigned" ? [] : [s.hot])),
    );
    const drepState = (c: Cred) => {
      const known = certified.dreps.get(credKey(c));
      return known ? Effect.succeed(known) : view.governance.drep(c);
    };
    const unknownVoters: Array<E.GovernanceVoter> = [];
    for (const { voter } of voters) {
      const isKnown = voter.role === "DRep"
        ? (yield* drepState(voter.cred)).registered
        : voter.role === "SPO"
        ? yield* view.poolKnown(voter.cred.hash)
        : hotKeys.has(credKey(voter.cred));
      if (!isKnown) unknownVoters.push(ogmiosVoter(voter));
    }
    return unknownVoters.length > 0 ? E.unknownVoters(unknownVoters) : undefined;
  });

/** GovActionsDoNotExist (3138): every voted action is a live proposal, each named once. */
const proposalsKnown = (
  voters: ReadonlyArray<VoterVotes>,
  byId: ReadonlyMap<string, LiveProposal>,
): Failure => {
  const unknownActions = voters.flatMap((v) => v.votes.filter((x) => !byId.has(actionKey(x.action))));
  if (unknownActions.length === 0) return undefined;
  const seen = new Set<string>();
  return E.unknownGovernanceProposals(
    unknownActions.filter((x) => !seen.has(actionKey(x.action)) && seen.add(actionKey(x.action)))
      .map((x) => proposalReference(x.action)),
  );
};

/** VotingOnExpiredGovAction (3160). */
const proposalsNotExpired = (cast: ReadonlyArray<Cast>, epoch: number): Failure => {
  const expired = cast.filter((c) => epoch > c.proposal.expiresAfter);
  return expired.length > 0
    ? E.votingOnExpiredActions(
      expired.map((c) => ({ proposal: proposalReference(c.proposal.id), voter: ogmiosVoter(c.voter) })),
    )
    : undefined;
};

/** Whether the action admits the voter's role (committee: not on itself; pools: a few kinds, security updates). */
const admits = (voter: VoterRef, x: LiveProposal) =>
  voter.role === "DRep"
    ? true
    : voter.role === "ConstitutionalCommittee"
    ? x.type !== "NoConfidence" && x.type !== "NewCommittee"
    : ["NoConfidence", "NewCommittee", "HardForkInitiation", "InfoAction"].includes(x.type) ||
      (x.type === "ParameterChange" && x.security === true);

/** DisallowedVoters (3137). */
const votersAdmitted = (cast: ReadonlyArray<Cast>): Failure => {
  const disallowed = cast.filter((c) => !admits(c.voter, c.proposal));
  return disallowed.length > 0
    ? E.unauthorizedVotes(
      disallowed.map((c) => ({ proposal: proposalReference(c.proposal.id), voter: ogmiosVoter(c.voter) })),
    )
    : undefined;
};

/** The votes' checks in order, against the live proposals (`known`, this transaction's included). */
export const checkVotes = (
  voters: ReadonlyArray<VoterVotes>,
  known: ReadonlyArray<LiveProposal>,
  view: LedgerView,
  certified: {
    readonly dreps: ReadonlyMap<string, DrepState>;
    readonly hot: ReadonlyMap<string, MemberState>;
  },
): Effect.Effect<Failure, SqlError> =>
  Effect.gen(function* () {
    const unknownVoters = yield* votersKnown(voters, view, certified);
    if (unknownVoters) return unknownVoters;
    const byId = new Map(known.map((k) => [actionKey(k.id), k]));
    const unknownProposals = proposalsKnown(voters, byId);
    if (unknownProposals) return unknownProposals;
    const cast = voters.flatMap((v) =>
      v.votes.map((x) => ({ voter: v.voter, proposal: byId.get(actionKey(x.action))! }))
    );
    return proposalsNotExpired(cast, view.params.epoch) ?? votersAdmitted(cast);
  });
