/**
 * What a transaction holds for Conway governance, read from CML into plain values: its voters in the ledger's
 * order (committee, DRep, stake pool; script credentials before key ones, then by hash: the order the `vote`
 * redeemer index counts in) with their votes in GovActionId order, and its proposals with their action's
 * purpose, ancestor, guardrails, withdrawals, version, committee change or parameter update.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { listOf } from "../decoding/cml_conversions.ts";
import { type ParamUpdate, readParamUpdate } from "./param_update.ts";

export interface Cred {
  readonly hash: string;
  readonly script: boolean;
}

export const credOf = (c: CML.Credential): Cred =>
  c.as_pub_key()
    ? { hash: c.as_pub_key()!.to_hex(), script: false }
    : { hash: c.as_script()!.to_hex(), script: true };

/** A map key for a credential: the ledger orders script credentials before key ones. */
export const credKey = (c: Cred): string => `${c.script ? "0" : "1"}:${c.hash}`;

export const credFromKey = (key: string): Cred => ({ script: key.startsWith("0:"), hash: key.slice(2) });

export const cmlCredential = (c: Cred): CML.Credential =>
  c.script
    ? CML.Credential.new_script(CML.ScriptHash.from_hex(c.hash))
    : CML.Credential.new_pub_key(CML.Ed25519KeyHash.from_hex(c.hash));

export type VoterRole = "ConstitutionalCommittee" | "DRep" | "SPO";

export interface VoterRef {
  readonly role: VoterRole;
  /** The hot credential (committee), the DRep credential, or the pool's key hash (script false). */
  readonly cred: Cred;
}

export interface ActionId {
  readonly tx: string;
  readonly index: number;
}

export const actionKey = (a: ActionId): string => `${a.tx}#${a.index}`;

export type VoteValue = "Yes" | "No" | "Abstain";

export interface Anchor {
  readonly url: string;
  readonly hash: string;
}

export interface VoteEntry {
  readonly action: ActionId;
  readonly vote: VoteValue;
  readonly anchor?: Anchor;
}

export interface VoterVotes {
  readonly voter: VoterRef;
  readonly votes: ReadonlyArray<VoteEntry>;
}

/** db-sync's govactiontype. */
export type ActionType =
  | "ParameterChange"
  | "HardForkInitiation"
  | "TreasuryWithdrawals"
  | "NoConfidence"
  | "NewCommittee"
  | "NewConstitution"
  | "InfoAction";

/** The ledger's GovActionPurpose, as Ogmios names it. */
export type Purpose =
  | "protocolParametersUpdate"
  | "hardForkInitiation"
  | "constitutionalCommittee"
  | "constitution";

export const purposeOf = (type: ActionType): Purpose | undefined =>
  ({
    ParameterChange: "protocolParametersUpdate",
    HardForkInitiation: "hardForkInitiation",
    NoConfidence: "constitutionalCommittee",
    NewCommittee: "constitutionalCommittee",
    NewConstitution: "constitution",
  } as Partial<Record<ActionType, Purpose>>)[type];

export interface ProposalPart {
  readonly index: number;
  readonly deposit: bigint;
  readonly returnAccount: CML.RewardAddress;
  readonly anchor: Anchor;
  readonly type: ActionType;
  readonly purpose?: Purpose;
  /** The ancestor it builds on (purposes only); null for none. */
  readonly prev: ActionId | null;
  /** The guardrails script hash (ParameterChange, TreasuryWithdrawals). */
  readonly policy: string | null;
  readonly withdrawals: ReadonlyArray<{ readonly account: CML.RewardAddress; readonly amount: bigint }>;
  readonly version?: { readonly major: number; readonly minor: number };
  readonly update?: ParamUpdate;
  readonly committee?: {
    readonly removed: ReadonlyArray<Cred>;
    readonly added: ReadonlyArray<{ readonly cred: Cred; readonly epoch: number }>;
    readonly quorum: { readonly numerator: bigint; readonly denominator: bigint };
  };
  readonly constitution?: { readonly anchor: Anchor; readonly script: string | null };
  readonly action: CML.GovAction;
}

const voteValue: Record<number, VoteValue> = {
  [CML.Vote.Yes]: "Yes",
  [CML.Vote.No]: "No",
  [CML.Vote.Abstain]: "Abstain",
};

export const anchorOf = (a: CML.Anchor): Anchor => ({
  url: a.anchor_url().get(),
  hash: a.anchor_doc_hash().to_hex(),
});

const voterOf = (v: CML.Voter): VoterRef => {
  switch (v.kind()) {
    case CML.VoterKind.ConstitutionalCommitteeHotKeyHash:
      return { role: "ConstitutionalCommittee", cred: { hash: v.key_hash()!.to_hex(), script: false } };
    case CML.VoterKind.ConstitutionalCommitteeHotScriptHash:
      return { role: "ConstitutionalCommittee", cred: { hash: v.script_hash()!.to_hex(), script: true } };
    case CML.VoterKind.DRepKeyHash:
      return { role: "DRep", cred: { hash: v.key_hash()!.to_hex(), script: false } };
    case CML.VoterKind.DRepScriptHash:
      return { role: "DRep", cred: { hash: v.script_hash()!.to_hex(), script: true } };
    default:
      return { role: "SPO", cred: { hash: v.key_hash()!.to_hex(), script: false } };
  }
};

const roleOrder: Record<VoterRole, number> = { ConstitutionalCommittee: 0, DRep: 1, SPO: 2 };

/** The ledger's Ord Voter: constructor, then credential (scripts first), then hash bytes. */
export const compareVoters = (a: VoterRef, b: VoterRef): number => {
  const x = `${roleOrder[a.role]}${credKey(a.cred)}`, y = `${roleOrder[b.role]}${credKey(b.cred)}`;
  return x < y ? -1 : x > y ? 1 : 0;
};

const compareActions = (a: ActionId, b: ActionId) => (a.tx < b.tx ? -1 : a.tx > b.tx ? 1 : a.index - b.index);

const actionIdOf = (id: CML.GovActionId): ActionId => ({
  tx: id.transaction_id().to_hex(),
  index: Number(id.gov_action_index()),
});

/** The voters and their votes, in the ledger's order. */
export const votesOf = (body: CML.TransactionBody): Array<VoterVotes> => {
  const procedures = body.voting_procedures();
  if (!procedures) return [];
  return listOf(procedures.keys()).map((voter) => {
    const map = procedures.get(voter)!;
    const votes = listOf(map.keys()).map((id) => {
      const p = map.get(id)!;
      const anchor = p.anchor();
      return {
        action: actionIdOf(id),
        vote: voteValue[p.vote()]!,
        ...(anchor ? { anchor: anchorOf(anchor) } : {}),
      };
    }).sort((a, b) => compareActions(a.action, b.action));
    return { voter: voterOf(voter), votes };
  }).sort((a, b) => compareVoters(a.voter, b.voter));
};

const typeOf: Record<number, ActionType> = {
  [CML.GovActionKind.ParameterChangeAction]: "ParameterChange",
  [CML.GovActionKind.HardForkInitiationAction]: "HardForkInitiation",
  [CML.GovActionKind.TreasuryWithdrawalsAction]: "TreasuryWithdrawals",
  [CML.GovActionKind.NoConfidence]: "NoConfidence",
  [CML.GovActionKind.UpdateCommittee]: "NewCommittee",
  [CML.GovActionKind.NewConstitution]: "NewConstitution",
  [CML.GovActionKind.InfoAction]: "InfoAction",
};

const prevOf = (id: CML.GovActionId | undefined): ActionId | null => (id ? actionIdOf(id) : null);

/** The proposals, in the transaction's order (their `propose` redeemer index). */
export const proposalsOf = (body: CML.TransactionBody): Array<ProposalPart> =>
  listOf(body.proposal_procedures()).map((p, index) => {
    const action = p.gov_action();
    const type = typeOf[action.kind()]!;
    const base = {
      index,
      deposit: p.deposit(),
      returnAccount: p.reward_account(),
      anchor: anchorOf(p.anchor()),
      type,
      purpose: purposeOf(type),
      action,
      prev: null,
      policy: null,
      withdrawals: [],
    };
    const change = action.as_parameter_change_action();
    if (change) {
      return {
        ...base,
        prev: prevOf(change.action_id()),
        policy: change.policy_hash()?.to_hex() ?? null,
        update: readParamUpdate(change.update()),
      };
    }
    const fork = action.as_hard_fork_initiation_action();
    if (fork) {
      return {
        ...base,
        prev: prevOf(fork.action_id()),
        version: { major: Number(fork.version().major()), minor: Number(fork.version().minor()) },
      };
    }
    const treasury = action.as_treasury_withdrawals_action();
    if (treasury) {
      const map = treasury.withdrawal();
      return {
        ...base,
        policy: treasury.policy_hash()?.to_hex() ?? null,
        withdrawals: listOf(map.keys()).map((account) => ({ account, amount: map.get(account)! })),
      };
    }
    const noConfidence = action.as_no_confidence();
    if (noConfidence) return { ...base, prev: prevOf(noConfidence.action_id()) };
    const committee = action.as_update_committee();
    if (committee) {
      const added = committee.credentials();
      const quorum = committee.unit_interval();
      return {
        ...base,
        prev: prevOf(committee.action_id()),
        committee: {
          removed: listOf(committee.cold_credentials()).map(credOf),
          added: listOf(added.keys()).map((c) => ({ cred: credOf(c), epoch: Number(added.get(c)!) })),
          quorum: { numerator: quorum.start(), denominator: quorum.end() },
        },
      };
    }
    const constitution = action.as_new_constitution();
    if (constitution) {
      const c = constitution.constitution();
      return {
        ...base,
        prev: prevOf(constitution.action_id()),
        constitution: { anchor: anchorOf(c.anchor()), script: c.script_hash()?.to_hex() ?? null },
      };
    }
    return base;
  });
