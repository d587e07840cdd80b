/**
 * Conway governance rules (protocol version 10, after the bootstrap) against the governance view, in the
 * ledger's order: LEDGER's treasury value (3158) and withdrawals only from DRep-delegated key accounts (3150);
 * GOVCERT and DELEG's DRep and committee certificates (3152, 3153, 3151, 3154, and 3146 for a vote delegated to
 * an unregistered DRep, as Ogmios maps DelegateeDRepNotRegisteredDELEG); then GOV's proposals and votes
 * (proposal_rules.ts). Gives the deposits paid and refunded and what the transaction changes in the governance
 * state.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect, Either, Option } from "effect";
import { listOf } from "../decoding/cml_conversions.ts";
import type { StakeEffects } from "../rules/certificates.ts";
import * as E from "../errors.ts";
import { type Cred, credKey, credOf } from "./parts.ts";
import type { DrepState, LiveProposal, MemberState } from "./view.ts";
import type { LedgerView } from "../rules/ledger_view.ts";
import { checkProposalsAndVotes, rewardAddressHex } from "./proposal_rules.ts";
import { member } from "./ogmios_references.ts";

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

    const governed = yield* checkProposalsAndVotes(body, txId, view, stake, { dreps, hot });
    if (Either.isLeft(governed)) return fail(governed.left);
    deposits += governed.right.deposits;
    return Either.right({
      deposits,
      refunds,
      dreps,
      hot,
      proposals: governed.right.proposals,
      voteDelegations,
    });
  });
