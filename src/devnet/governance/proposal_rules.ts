/**
 * Conway's GOV rule (protocol version 10) for a transaction's proposals and votes, once its certificates applied:
 * each proposal in order, one small check each (3162 version bump, 3139 malformed update, 3146 unregistered
 * return or withdrawal account, 3155 deposit, 3124 network, 3163 guardrails, 3168 empty withdrawal, 3156 / 3157
 * committee update, 3159 ancestry: the purpose's last enacted action or a live proposal of the purpose), then
 * the votes (vote_rules.ts). Gives the proposal deposits and the proposals as the mempool's view keeps them.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect, Either } from "effect";
import type { StakeEffects } from "../rules/certificates.ts";
import * as E from "../errors.ts";
import { member, proposalReference } from "./ogmios_references.ts";
import { actionKey, credKey, credOf, type ProposalPart, proposalsOf, votesOf } from "./parts.ts";
import type { DrepState, LiveProposal, MemberState, Roots } from "./view.ts";
import type { LedgerView } from "../rules/ledger_view.ts";
import { checkVotes } from "./vote_rules.ts";

type Failure = E.OgmiosError | undefined;

export const rewardAddressHex = (c: CML.Credential, networkId: number) =>
  CML.RewardAddress.new(networkId, c).to_address().to_hex();

/** What each proposal is checked against. */
interface ProposalContext {
  readonly view: LedgerView;
  readonly epoch: number;
  readonly current: { readonly major: number; readonly minor: number };
  readonly roots: Roots;
  /** Live proposals, this transaction's earlier ones included. */
  readonly known: ReadonlyArray<LiveProposal>;
  /** Whether a reward account is registered once this transaction's certificates applied. */
  readonly registered: (account: CML.RewardAddress) => Effect.Effect<boolean, SqlError>;
}

/** pvCanFollow: the next major version with minor 0, or the next minor version. */
const canFollow = (from: { major: number; minor: number }, to: { major: number; minor: number }) =>
  (to.major === from.major + 1 && to.minor === 0) || (to.major === from.major && to.minor === from.minor + 1);

/** ProposalCantFollow (3162): a hard fork's version follows the one it builds on. */
const versionCanFollow = (proposal: ProposalPart, c: ProposalContext): Failure => {
  if (!proposal.version) return undefined;
  const root = c.roots.hardForkInitiation;
  const sameRoot =
    actionKey(proposal.prev ?? { tx: "", index: -1 }) === actionKey(root ?? { tx: "", index: -1 });
  const from = sameRoot || proposal.version.major > c.current.major + 1
    ? c.current
    : c.known.find((k) => proposal.prev && actionKey(k.id) === actionKey(proposal.prev))?.version;
  return from && !canFollow(from, proposal.version)
    ? E.invalidHardForkVersionBump(proposal.version, from)
    : undefined;
};

/** MalformedProposal (3139): a parameter update is well formed (ppuWellFormed). */
const updateWellFormed = (proposal: ProposalPart): Failure =>
  proposal.update && !proposal.update.wellFormed ? E.invalidProtocolParametersUpdate() : undefined;

/** ProposalReturnAccountDoesNotExist, TreasuryWithdrawalReturnAccountsDoNotExist (3146). */
const accountsRegistered = (proposal: ProposalPart, c: ProposalContext): Effect.Effect<Failure, SqlError> =>
  Effect.gen(function* () {
    for (const account of [proposal.returnAccount, ...proposal.withdrawals.map((w) => w.account)]) {
      if (!(yield* c.registered(account))) {
        const cred = credOf(account.payment());
        return E.unknownCredential(cred.hash, member(cred).from);
      }
    }
    return undefined;
  });

/** ProposalDepositIncorrect (3155). */
const depositMatches = (proposal: ProposalPart, c: ProposalContext): Failure =>
  proposal.deposit !== c.view.params.govActionDeposit
    ? E.proposalDepositMismatch(proposal.deposit, c.view.params.govActionDeposit)
    : undefined;

/** ProposalProcedureNetworkIdMismatch, TreasuryWithdrawalsNetworkIdMismatch (3124). */
const accountsOnThisNetwork = (proposal: ProposalPart, c: ProposalContext): Failure => {
  const networkId = c.view.networkId;
  const expected = networkId === 1 ? "mainnet" : "testnet";
  if (proposal.returnAccount.network_id() !== networkId) {
    return E.networkMismatch(expected, "rewardAccount", [proposal.returnAccount.to_address().to_bech32()]);
  }
  if (proposal.type !== "TreasuryWithdrawals") return undefined;
  const wrong = proposal.withdrawals.filter((w) => w.account.network_id() !== networkId);
  return wrong.length > 0
    ? E.networkMismatch(expected, "rewardAccount", wrong.map((w) => w.account.to_address().to_bech32()))
    : undefined;
};

/** InvalidPolicyHash (3163): withdrawals and parameter changes name the constitution's guardrails script. */
const guardrailsMatch = (proposal: ProposalPart, c: ProposalContext): Effect.Effect<Failure, SqlError> =>
  Effect.gen(function* () {
    if (proposal.type !== "TreasuryWithdrawals" && proposal.type !== "ParameterChange") return undefined;
    const guardrails = yield* c.view.governance.constitutionScript;
    return proposal.policy !== guardrails ? E.guardrailsHashMismatch(proposal.policy, guardrails) : undefined;
  });

/** ZeroTreasuryWithdrawals (3168). */
const withdrawalNotEmpty = (proposal: ProposalPart): Failure =>
  proposal.type === "TreasuryWithdrawals" && proposal.withdrawals.every((w) => w.amount === 0n)
    ? E.emptyTreasuryWithdrawal()
    : undefined;

/** ConflictingCommitteeUpdate (3156), ExpirationEpochTooSmall (3157). */
const committeeUpdateValid = (proposal: ProposalPart, c: ProposalContext): Failure => {
  if (!proposal.committee) return undefined;
  const removed = new Set(proposal.committee.removed.map(credKey));
  const conflicting = proposal.committee.added.filter((a) => removed.has(credKey(a.cred)));
  if (conflicting.length > 0) return E.conflictingCommitteeUpdate(conflicting.map((a) => member(a.cred)));
  const retired = proposal.committee.added.filter((a) => a.epoch <= c.epoch);
  return retired.length > 0 ? E.invalidCommitteeUpdate(retired.map((a) => member(a.cred))) : undefined;
};

/** InvalidPrevGovActionId (3159): the ancestor is the purpose's last enacted action or a live proposal of it. */
const ancestryValid = (proposal: ProposalPart, c: ProposalContext): Failure => {
  if (!proposal.purpose) return undefined;
  const root = c.roots[proposal.purpose];
  const onRoot = proposal.prev === null
    ? root === null
    : root !== null && actionKey(root) === actionKey(proposal.prev);
  const onLive = proposal.prev !== null &&
    c.known.some((k) => k.purpose === proposal.purpose && actionKey(k.id) === actionKey(proposal.prev!));
  if (onRoot || onLive) return undefined;
  return E.invalidPreviousProposals([{
    metadata: proposal.anchor,
    type: proposal.purpose,
    ...(proposal.prev ? { invalidPreviousProposal: proposalReference(proposal.prev) } : {}),
  }]);
};

/** One proposal's checks, in the ledger's order. */
const checkProposal = (proposal: ProposalPart, c: ProposalContext): Effect.Effect<Failure, SqlError> =>
  Effect.gen(function* () {
    const shape = versionCanFollow(proposal, c) ?? updateWellFormed(proposal);
    if (shape) return shape;
    const unregistered = yield* accountsRegistered(proposal, c);
    if (unregistered) return unregistered;
    const declared = depositMatches(proposal, c) ?? accountsOnThisNetwork(proposal, c);
    if (declared) return declared;
    const guardrails = yield* guardrailsMatch(proposal, c);
    if (guardrails) return guardrails;
    return withdrawalNotEmpty(proposal) ?? committeeUpdateValid(proposal, c) ?? ancestryValid(proposal, c);
  });

/** The proposal as the mempool's governance view keeps it. */
const liveProposal = (proposal: ProposalPart, txId: string, view: LedgerView): LiveProposal => ({
  id: { tx: txId, index: proposal.index },
  type: proposal.type,
  purpose: proposal.purpose,
  expiresAfter: view.params.epoch + Number(view.params.row.govActionLifetime ?? 0),
  prev: proposal.prev,
  version: proposal.version,
  addedMembers: proposal.committee?.added.map((a) => credKey(a.cred)) ?? [],
  security: proposal.update?.security,
});

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
    const p = view.params;
    // accounts are known by credential, whatever network the address names (that is a rule of its own)
    const registered = (account: CML.RewardAddress) => {
      const key = rewardAddressHex(account.payment(), view.networkId);
      const changed = stake.stakeRegistration.get(key);
      return changed !== undefined
        ? Effect.succeed(changed)
        : Effect.map(view.stakeAccount(key), (s) => s.registered);
    };
    const known: Array<LiveProposal> = [...(yield* view.governance.proposals)];
    const context: ProposalContext = {
      view,
      epoch: p.epoch,
      current: { major: p.row.protocolMajor, minor: p.row.protocolMinor },
      roots: yield* view.governance.roots,
      known,
      registered,
    };
    // proposals, each one building on the live ones (and those before it in this transaction)
    let deposits = 0n;
    const added: Array<LiveProposal> = [];
    for (const proposal of proposalsOf(body)) {
      const failure = yield* checkProposal(proposal, context);
      if (failure) return Either.left(failure);
      deposits += proposal.deposit;
      const live = liveProposal(proposal, txId, view);
      known.push(live);
      added.push(live);
    }
    // votes, by voters registered once the certificates applied, on live proposals
    const votes = yield* checkVotes(votesOf(body), known, view, certified);
    if (votes) return Either.left(votes);
    return Either.right({ deposits, proposals: added });
  });
