/**
 * Conway governance rules (protocol version 10, after the bootstrap) against the governance view, in the
 * ledger's order: LEDGER's treasury value (3158) and withdrawals only from DRep-delegated key accounts (3150);
 * GOVCERT and DELEG's DRep and committee certificates (3152, 3153, 3151, 3154, and 3146 for a vote delegated to
 * an unregistered DRep, as Ogmios maps DelegateeDRepNotRegisteredDELEG); GOV's proposals (3162, 3139, 3146,
 * 3155, 3124, 3163, 3168, 3156, 3157, 3159) then votes (3167, 3138, 3160, 3137). Gives the deposits paid and
 * refunded and what the transaction changes in the governance state.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect, Either, Option } from "effect";
import { listOf } from "./cardano.ts";
import type { StakeEffects } from "./certificate_rules.ts";
import * as E from "./errors.ts";
import {
  type ActionId,
  actionKey,
  type Cred,
  credKey,
  credOf,
  proposalsOf,
  type VoterRef,
  votesOf,
} from "./governance_parts.ts";
import type { DrepState, LiveProposal, MemberState } from "./governance_view.ts";
import type { LedgerView } from "./ledger_view.ts";

export interface GovernanceEffects {
  readonly deposits: bigint;
  readonly refunds: bigint;
  readonly dreps: ReadonlyMap<string, DrepState>;
  readonly hot: ReadonlyMap<string, MemberState>;
  readonly proposals: ReadonlyArray<LiveProposal>;
  readonly voteDelegations: ReadonlyMap<string, string | null>;
}

export const noGovernanceEffects: GovernanceEffects = {
  deposits: 0n,
  refunds: 0n,
  dreps: new Map(),
  hot: new Map(),
  proposals: [],
  voteDelegations: new Map(),
};

const fail = (error: E.OgmiosError) => Either.left(error);

const member = (c: Cred): E.MemberReference => ({
  id: c.hash,
  from: c.script ? "script" : "verificationKey",
});

const rewardAddressHex = (c: CML.Credential, networkId: number) =>
  CML.RewardAddress.new(networkId, c).to_address().to_hex();

export const ogmiosVoter = (v: VoterRef): E.GovernanceVoter =>
  v.role === "SPO"
    ? { role: "stakePoolOperator", id: CML.Ed25519KeyHash.from_hex(v.cred.hash).to_bech32("pool") }
    : { role: v.role === "DRep" ? "delegateRepresentative" : "constitutionalCommittee", ...member(v.cred) };

const reference = (a: ActionId): E.ProposalReference => ({ transaction: { id: a.tx }, index: a.index });

/** The DRep a delegation certificate names: a credential key, or one of the predefined DReps. */
const drepTarget = (d: CML.DRep): string =>
  d.kind() === CML.DRepKind.AlwaysAbstain
    ? "abstain"
    : d.kind() === CML.DRepKind.AlwaysNoConfidence
    ? "noConfidence"
    : credKey(
      d.as_key()
        ? { hash: d.as_key()!.to_hex(), script: false }
        : { hash: d.as_script()!.to_hex(), script: true },
    );

const voteDelegationOf = (cert: CML.Certificate) =>
  cert.as_vote_deleg_cert() ?? cert.as_stake_vote_deleg_cert() ?? cert.as_vote_reg_deleg_cert() ??
    cert.as_stake_vote_reg_deleg_cert();

/** pvCanFollow: the next major version with minor 0, or the next minor version. */
const canFollow = (from: { major: number; minor: number }, to: { major: number; minor: number }) =>
  (to.major === from.major + 1 && to.minor === 0) || (to.major === from.major && to.minor === from.minor + 1);

/**
 * LEDGER's checks before the certificates: the declared treasury equals the treasury (3158), and (PV10) every
 * key-hash reward account withdrawn from delegates its vote, as the state before this transaction has it (3150).
 */
export const checkWithdrawalGovernance = (
  body: CML.TransactionBody,
  view: LedgerView,
): Effect.Effect<Option.Option<E.OgmiosError>, SqlError> =>
  Effect.gen(function* () {
    const declared = body.current_treasury_value();
    if (declared !== undefined) {
      const treasury = yield* view.governance.treasury;
      if (declared !== treasury) return Option.some(E.treasuryValueMismatch(declared, treasury));
    }
    const marginalized: Array<string> = [];
    for (const account of listOf(body.withdrawals()?.keys())) {
      const key = account.payment().as_pub_key();
      if (!key) continue;
      if ((yield* view.governance.voteDelegation(account.to_address().to_hex())) === null) {
        marginalized.push(key.to_hex());
      }
    }
    return marginalized.length > 0 ? Option.some(E.forbiddenWithdrawal(marginalized)) : Option.none();
  });

/** GOVCERT, DELEG's DRep check, and GOV, after the stake rules accepted the certificates. */
export const checkGovernanceRules = (
  body: CML.TransactionBody,
  txId: string,
  view: LedgerView,
  stake: StakeEffects,
): Effect.Effect<Either.Either<GovernanceEffects, E.OgmiosError>, SqlError> =>
  Effect.gen(function* () {
    const gov = view.governance;
    const p = view.params;
    const epoch = p.epoch;
    const current = { major: p.row.protocolMajor, minor: p.row.protocolMinor };
    const dreps = new Map<string, DrepState>();
    const hot = new Map<string, MemberState>();
    const voteDelegations = new Map<string, string | null>();
    const drepState = (c: Cred) => {
      const known = dreps.get(credKey(c));
      return known ? Effect.succeed(known) : gov.drep(c);
    };
    let deposits = 0n;
    let refunds = 0n;

    // certificates, in order: each sees the ones before it
    for (const cert of listOf(body.certs())) {
      const reg = cert.as_reg_drep_cert();
      const unreg = cert.as_unreg_drep_cert();
      const update = cert.as_update_drep_cert();
      const drepCert = reg ?? unreg ?? update;
      if (drepCert) {
        const c = credOf(drepCert.drep_credential());
        const state = yield* drepState(c);
        if (reg) {
          if (state.registered) return fail(E.drepAlreadyRegistered(member(c)));
          if (reg.deposit() !== p.drepDeposit) {
            return fail(E.credentialDepositMismatch(reg.deposit(), p.drepDeposit));
          }
          deposits += reg.deposit();
          dreps.set(credKey(c), { registered: true, deposit: reg.deposit() });
        } else if (!state.registered) {
          return fail(E.drepNotRegistered(member(c)));
        } else if (unreg) {
          const paid = state.deposit ?? p.drepDeposit;
          if (unreg.deposit() !== paid) return fail(E.credentialDepositMismatch(unreg.deposit(), paid));
          refunds += unreg.deposit();
          dreps.set(credKey(c), { registered: false, deposit: null });
        }
      }
      const stakeCredential = (cert.as_stake_registration() ?? cert.as_reg_cert() ??
        cert.as_stake_reg_deleg_cert() ?? cert.as_stake_deregistration() ?? cert.as_unreg_cert())
        ?.stake_credential();
      // (re-)registering or deregistering a stake credential leaves it with no vote delegation
      if (stakeCredential) voteDelegations.set(rewardAddressHex(stakeCredential, view.networkId), null);
      const delegation = voteDelegationOf(cert);
      if (delegation) {
        const target = drepTarget(delegation.d_rep());
        if (target !== "abstain" && target !== "noConfidence") {
          const c = credOf(
            delegation.d_rep().as_key()
              ? CML.Credential.new_pub_key(delegation.d_rep().as_key()!)
              : CML.Credential.new_script(delegation.d_rep().as_script()!),
          );
          if (!(yield* drepState(c)).registered) return fail(E.unknownCredential(c.hash, member(c).from));
        }
        voteDelegations.set(rewardAddressHex(delegation.stake_credential(), view.networkId), target);
      }
      const auth = cert.as_auth_committee_hot_cert();
      const resign = cert.as_resign_committee_cold_cert();
      const cold = auth?.committee_cold_credential() ?? resign?.committee_cold_credential();
      if (cold) {
        const c = credOf(cold);
        const committee = yield* gov.committee;
        const previous = hot.get(credKey(c)) ?? committee.hot.get(credKey(c));
        if (previous === "resigned") return fail(E.unknownCommitteeMember(member(c)));
        const isMember = committee.members.has(credKey(c)) ||
          (yield* gov.proposals).some((x) => x.addedMembers.includes(credKey(c)));
        if (!isMember) return fail(E.unknownCommitteeMember(member(c)));
        hot.set(credKey(c), auth ? { hot: credKey(credOf(auth.committee_hot_credential())) } : "resigned");
      }
    }

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

    return Either.right({ deposits, refunds, dreps, hot, proposals: added, voteDelegations });
  });
