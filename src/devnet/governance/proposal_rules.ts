/**
 * Conway's GOV rule (protocol version 10) for a transaction's proposals and votes, once its certificates applied:
 * each proposal in order (3162 version bump, 3139 malformed update, 3146 unregistered return or withdrawal
 * account, 3155 deposit, 3124 network, 3163 guardrails, 3168 empty withdrawal, 3156 / 3157 committee update,
 * 3159 ancestry: the purpose's last enacted action or a live proposal of the purpose), then the votes (3167
 * unknown voters, 3138 unknown proposals, 3160 expired ones, 3137 voters the action excludes). Gives the proposal
 * deposits and the proposals as the mempool's view keeps them.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect, Either } from "effect";
import type { StakeEffects } from "../rules/certificates.ts";
import * as E from "../errors.ts";
import {
  type ActionId,
  actionKey,
  type Cred,
  credKey,
  credOf,
  proposalsOf,
  type VoterRef,
  votesOf,
} from "./parts.ts";
import type { DrepState, LiveProposal, MemberState } from "./view.ts";
import type { LedgerView } from "../rules/ledger_view.ts";

const fail = (error: E.OgmiosError) => Either.left(error);

export const member = (c: Cred): E.MemberReference => ({
  id: c.hash,
  from: c.script ? "script" : "verificationKey",
});

export const rewardAddressHex = (c: CML.Credential, networkId: number) =>
  CML.RewardAddress.new(networkId, c).to_address().to_hex();

export const ogmiosVoter = (v: VoterRef): E.GovernanceVoter =>
  v.role === "SPO"
    ? { role: "stakePoolOperator", id: CML.Ed25519KeyHash.from_hex(v.cred.hash).to_bech32("pool") }
    : { role: v.role === "DRep" ? "delegateRepresentative" : "constitutionalCommittee", ...member(v.cred) };

const reference = (a: ActionId): E.ProposalReference => ({ transaction: { id: a.tx }, index: a.index });

/** pvCanFollow: the next major version with minor 0, or the next minor version. */
const canFollow = (from: { major: number; minor: number }, to: { major: number; minor: number }) =>
  (to.major === from.major + 1 && to.minor === 0) || (to.major === from.major && to.minor === from.minor + 1);

export const checkProposalsAndVotes = (
  body: CML.TransactionBody,
  txId: string,
  view: LedgerView,
  stake: StakeEffects,
  certified: {
    readonly dreps: ReadonlyMap<string, DrepState>;
    readonly hot: ReadonlyMap<string, MemberState>;
  },
): Effect.Effect<
  Either.Either<{ deposits: bigint; proposals: Array<LiveProposal> }, E.OgmiosError>,
  SqlError
> =>
  Effect.gen(function* () {
    // most transactions neither propose nor vote: they read no governance state
    if (proposalsOf(body).length === 0 && votesOf(body).length === 0) {
      return Either.right({ deposits: 0n, proposals: [] });
    }
    const gov = view.governance;
    const p = view.params;
    const epoch = p.epoch;
    const current = { major: p.row.protocolMajor, minor: p.row.protocolMinor };
    const { hot } = certified;
    const drepState = (c: Cred) => {
      const known = certified.dreps.get(credKey(c));
      return known ? Effect.succeed(known) : gov.drep(c);
    };
    let deposits = 0n;
    // proposals, each one building on the live ones (and those before it in this transaction)
    // accounts are known by credential, whatever network the address names (that is a rule of its own)
    const registered = (account: CML.RewardAddress) => {
      const key = rewardAddressHex(account.payment(), view.networkId);
      const changed = stake.stakeRegistration.get(key);
      return changed !== undefined
        ? Effect.succeed(changed)
        : Effect.map(view.stakeAccount(key), (s) => s.registered);
    };
    const expected = view.networkId === 1 ? "mainnet" : "testnet";
    const known: Array<LiveProposal> = [...(yield* gov.proposals)];
    const roots = yield* gov.roots;
    const added: Array<LiveProposal> = [];
    for (const proposal of proposalsOf(body)) {
      if (proposal.version) {
        const root = roots.hardForkInitiation;
        const sameRoot = actionKey(proposal.prev ?? { tx: "", index: -1 }) ===
          actionKey(root ?? { tx: "", index: -1 });
        const from = sameRoot || proposal.version.major > current.major + 1
          ? current
          : known.find((k) => proposal.prev && actionKey(k.id) === actionKey(proposal.prev))?.version;
        if (from && !canFollow(from, proposal.version)) {
          return fail(E.invalidHardForkVersionBump(proposal.version, from));
        }
      }
      if (proposal.update && !proposal.update.wellFormed) return fail(E.invalidProtocolParametersUpdate());
      if (!(yield* registered(proposal.returnAccount))) {
        const c = credOf(proposal.returnAccount.payment());
        return fail(E.unknownCredential(c.hash, member(c).from));
      }
      for (const w of proposal.withdrawals) {
        if (!(yield* registered(w.account))) {
          const c = credOf(w.account.payment());
          return fail(E.unknownCredential(c.hash, member(c).from));
        }
      }
      if (proposal.deposit !== p.govActionDeposit) {
        return fail(E.proposalDepositMismatch(proposal.deposit, p.govActionDeposit));
      }
      if (proposal.returnAccount.network_id() !== view.networkId) {
        return fail(
          E.networkMismatch(expected, "rewardAccount", [proposal.returnAccount.to_address().to_bech32()]),
        );
      }
      if (proposal.type === "TreasuryWithdrawals") {
        const wrong = proposal.withdrawals.filter((w) => w.account.network_id() !== view.networkId);
        if (wrong.length > 0) {
          return fail(
            E.networkMismatch(
              expected,
              "rewardAccount",
              wrong.map((w) => w.account.to_address().to_bech32()),
            ),
          );
        }
      }
      if (proposal.type === "TreasuryWithdrawals" || proposal.type === "ParameterChange") {
        const guardrails = yield* gov.constitutionScript;
        if (proposal.policy !== guardrails) {
          return fail(E.guardrailsHashMismatch(proposal.policy, guardrails));
        }
      }
      if (proposal.type === "TreasuryWithdrawals" && proposal.withdrawals.every((w) => w.amount === 0n)) {
        return fail(E.emptyTreasuryWithdrawal());
      }
      if (proposal.committee) {
        const removed = new Set(proposal.committee.removed.map(credKey));
        const conflicting = proposal.committee.added.filter((a) => removed.has(credKey(a.cred)));
        if (conflicting.length > 0) {
          return fail(E.conflictingCommitteeUpdate(conflicting.map((a) => member(a.cred))));
        }
        const retired = proposal.committee.added.filter((a) => a.epoch <= epoch);
        if (retired.length > 0) return fail(E.invalidCommitteeUpdate(retired.map((a) => member(a.cred))));
      }
      if (proposal.purpose) {
        const root = roots[proposal.purpose];
        const onRoot = proposal.prev === null
          ? root === null
          : root !== null && actionKey(root) === actionKey(proposal.prev);
        const onLive = proposal.prev !== null &&
          known.some((k) => k.purpose === proposal.purpose && actionKey(k.id) === actionKey(proposal.prev!));
        if (!onRoot && !onLive) {
          return fail(E.invalidPreviousProposals([{
            metadata: proposal.anchor,
            type: proposal.purpose,
            ...(proposal.prev ? { invalidPreviousProposal: reference(proposal.prev) } : {}),
          }]));
        }
      }
      deposits += proposal.deposit;
      const live: LiveProposal = {
        id: { tx: txId, index: proposal.index },
        type: proposal.type,
        purpose: proposal.purpose,
        expiresAfter: epoch + Number(p.row.govActionLifetime ?? 0),
        prev: proposal.prev,
        version: proposal.version,
        addedMembers: proposal.committee?.added.map((a) => credKey(a.cred)) ?? [],
        security: proposal.update?.security,
      };
      known.push(live);
      added.push(live);
    }

    // votes, by voters registered once the certificates applied, on live proposals
    const voters = votesOf(body);
    const committee = yield* gov.committee;
    const hotKeys = new Set(
      [...committee.hot, ...hot].flatMap(([, s]) => (s === "resigned" ? [] : [s.hot])),
    );
    const unknownVoters: Array<E.GovernanceVoter> = [];
    for (const { voter } of voters) {
      const isKnown = voter.role === "DRep"
        ? (yield* drepState(voter.cred)).registered
        : voter.role === "SPO"
        ? yield* view.poolKnown(voter.cred.hash)
        : hotKeys.has(credKey(voter.cred));
      if (!isKnown) unknownVoters.push(ogmiosVoter(voter));
    }
    if (unknownVoters.length > 0) return fail(E.unknownVoters(unknownVoters));
    const byId = new Map(known.map((k) => [actionKey(k.id), k]));
    const unknownActions = voters.flatMap((v) => v.votes.filter((x) => !byId.has(actionKey(x.action))));
    if (unknownActions.length > 0) {
      const seen = new Set<string>();
      return fail(E.unknownGovernanceProposals(
        unknownActions.filter((x) => !seen.has(actionKey(x.action)) && seen.add(actionKey(x.action)))
          .map((x) => reference(x.action)),
      ));
    }
    const cast = voters.flatMap((v) =>
      v.votes.map((x) => ({ voter: v.voter, proposal: byId.get(actionKey(x.action))! }))
    );
    const expired = cast.filter((c) => epoch > c.proposal.expiresAfter);
    if (expired.length > 0) {
      return fail(E.votingOnExpiredActions(
        expired.map((c) => ({ proposal: reference(c.proposal.id), voter: ogmiosVoter(c.voter) })),
      ));
    }
    const allowed = (voter: VoterRef, x: LiveProposal) =>
      voter.role === "DRep"
        ? true
        : voter.role === "ConstitutionalCommittee"
        ? x.type !== "NoConfidence" && x.type !== "NewCommittee"
        : ["NoConfidence", "NewCommittee", "HardForkInitiation", "InfoAction"].includes(x.type) ||
          (x.type === "ParameterChange" && x.security === true);
    const disallowed = cast.filter((c) => !allowed(c.voter, c.proposal));
    if (disallowed.length > 0) {
      return fail(E.unauthorizedVotes(
        disallowed.map((c) => ({ proposal: reference(c.proposal.id), voter: ogmiosVoter(c.voter) })),
      ));
    }

    return Either.right({ deposits, proposals: added });
  });
