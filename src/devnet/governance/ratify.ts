/**
 * Conway's RATIFY rule (protocol version 10, after the bootstrap), pure: the live proposals in priority order,
 * each ratified when its ancestor is the purpose's last enacted action, a new committee's terms fit, no delaying
 * action was ratified before it in this epoch, the treasury covers its withdrawals, and the committee, the stake
 * pools and the DReps accept it, each by its threshold over its voting stake (committeeAccepted, spoAccepted,
 * dRepAccepted); a ratified action changes the state the next ones see. Not ratified and past its last voting
 * epoch, a proposal expires.
 */
import { toRatio } from "@src/domain/ratio.ts";
import type { ActionType, Purpose, VoteValue } from "./parts.ts";
import { type DrepGroup, groupThresholdColumn, type ParamColumnValue } from "./param_update.ts";
import type { MemberState } from "./view.ts";

export interface RatifyProposal {
  readonly id: number;
  readonly type: ActionType;
  readonly purpose?: Purpose;
  readonly prev: number | null;
  /** db-sync's expiration: the first epoch it can no longer be voted on. */
  readonly expiration: number | null;
  readonly withdrawals: bigint;
  readonly memberTerms: ReadonlyArray<number>;
  readonly security: boolean;
  readonly groups: ReadonlyArray<DrepGroup>;
  readonly params: Readonly<Record<string, ParamColumnValue>>;
  /** The committee an UpdateCommittee makes (committee.id). */
  readonly committee: number | null;
  readonly drepVotes: ReadonlyMap<number, VoteValue>;
  readonly poolVotes: ReadonlyMap<number, VoteValue>;
  /** Votes by hot credential key. */
  readonly committeeVotes: ReadonlyMap<string, VoteValue>;
}

export interface Committee {
  /** Cold credential key → expiration epoch. */
  readonly members: ReadonlyMap<string, number>;
  readonly quorum: { readonly numerator: bigint; readonly denominator: bigint };
}

export interface RatifyState {
  readonly params: Readonly<Record<string, ParamColumnValue | null>>;
  readonly committee: Committee | null;
  readonly roots: Readonly<Record<Purpose, number | null>>;
  readonly treasury: bigint;
}

export interface RatifyEnv {
  readonly epoch: number;
  /** drep_distr of the epoch: stake by drep_hash id, with the DRep's kind and activity. */
  readonly dreps: ReadonlyArray<
    {
      readonly id: number;
      readonly amount: bigint;
      readonly kind: "registered" | "abstain" | "noConfidence";
      readonly activeUntil: number | null;
    }
  >;
  /** The stake pools' stake (the new mark snapshot: epoch_stake of epoch + 1), by pool_hash id. */
  readonly pools: ReadonlyMap<number, bigint>;
  /** How a pool that did not vote counts (its reward account's DRep delegation). */
  readonly poolDefaults: ReadonlyMap<number, "noConfidence" | "abstain">;
  /** Cold credential key → hot key or resignation. */
  readonly hot: ReadonlyMap<string, MemberState>;
  /** Committees proposals would make, by committee.id. */
  readonly committees: ReadonlyMap<number, Committee>;
}

const ratio = (value: ParamColumnValue | null | undefined): [bigint, bigint] => {
  const [n, d] = toRatio(Number(value ?? 0)).split("/");
  return [BigInt(n!), BigInt(d!)];
};

/** yes / total ≥ threshold, with a zero threshold always met and an empty total giving ratio 0. */
const meets = (yes: bigint, total: bigint, threshold: [bigint, bigint] | undefined): boolean => {
  if (!threshold) return false;
  const [n, d] = threshold;
  if (n === 0n) return true;
  return total > 0n && yes * d >= n * total;
};

/** The ledger's actionPriority: the order RATIFY considers actions in (and enactment applies them). */
export const actionPriority: Readonly<Record<ActionType, number>> = {
  NoConfidence: 0,
  NewCommittee: 1,
  NewConstitution: 2,
  HardForkInitiation: 3,
  ParameterChange: 4,
  TreasuryWithdrawals: 5,
  InfoAction: 6,
};

const delaying = new Set<ActionType>([
  "NoConfidence",
  "HardForkInitiation",
  "NewCommittee",
  "NewConstitution",
]);

/** The DRep threshold of an action, undefined when DReps cannot ratify it (InfoAction). */
const drepThreshold = (p: RatifyProposal, s: RatifyState): [bigint, bigint] | undefined => {
  const t = (column: string) => ratio(s.params[column]);
  switch (p.type) {
    case "NoConfidence":
      return t("dvt_motion_no_confidence");
    case "NewCommittee":
      return t(s.committee ? "dvt_committee_normal" : "dvt_committee_no_confidence");
    case "NewConstitution":
      return t("dvt_update_to_constitution");
    case "HardForkInitiation":
      return t("dvt_hard_fork_initiation");
    case "ParameterChange":
      return p.groups.map((g) => t(groupThresholdColumn[g])).reduce(
        (a, b) => (a[0] * b[1] >= b[0] * a[1] ? a : b),
        [0n, 1n] as [bigint, bigint],
      );
    case "TreasuryWithdrawals":
      return t("dvt_treasury_withdrawal");
    default:
      return undefined;
  }
};

/** The stake pools' threshold: [0, 1] where they may not vote (always met), undefined for InfoAction. */
const poolThreshold = (p: RatifyProposal, s: RatifyState): [bigint, bigint] | undefined => {
  const t = (column: string) => ratio(s.params[column]);
  switch (p.type) {
    case "NoConfidence":
      return t("pvt_motion_no_confidence");
    case "NewCommittee":
      return t(s.committee ? "pvt_committee_normal" : "pvt_committee_no_confidence");
    case "HardForkInitiation":
      return t("pvt_hard_fork_initiation");
    case "ParameterChange":
      return p.security ? t("pvtpp_security_group") : [0n, 1n];
    case "InfoAction":
      return undefined;
    default:
      return [0n, 1n];
  }
};

const committeeAccepts = (p: RatifyProposal, s: RatifyState, env: RatifyEnv): boolean => {
  if (p.type === "NoConfidence" || p.type === "NewCommittee") return true;
  if (p.type === "InfoAction" || !s.committee) return false;
  const active = [...s.committee.members].filter(([cold, expiration]) => {
    const state = env.hot.get(cold);
    return state !== undefined && state !== "resigned" && env.epoch <= expiration;
  });
  // after the bootstrap, a committee smaller than its minimum size counts as none
  if (BigInt(active.length) < BigInt(s.params.committee_min_size ?? 0)) return false;
  const { numerator, denominator } = s.committee.quorum;
  if (numerator === 0n) return true;
  let yes = 0n;
  let total = 0n;
  for (const [cold, expiration] of s.committee.members) {
    const state = env.hot.get(cold);
    if (env.epoch > expiration || state === undefined || state === "resigned") continue;
    const vote = p.committeeVotes.get(state.hot);
    if (vote === "Abstain") continue;
    total += 1n;
    if (vote === "Yes") yes += 1n;
  }
  return meets(yes, total, [numerator, denominator]);
};

const poolsAccept = (p: RatifyProposal, s: RatifyState, env: RatifyEnv): boolean => {
  const threshold = poolThreshold(p, s);
  if (!threshold) return false;
  if (threshold[0] === 0n) return true;
  let yes = 0n;
  let abstain = 0n;
  let total = 0n;
  for (const [pool, stake] of env.pools) {
    total += stake;
    const vote = p.poolVotes.get(pool);
    if (vote === "Yes") yes += stake;
    else if (vote === "Abstain") abstain += stake;
    else if (vote === undefined && p.type !== "HardForkInitiation") {
      const fallback = env.poolDefaults.get(pool);
      if (fallback === "abstain") abstain += stake;
      else if (fallback === "noConfidence" && p.type === "NoConfidence") yes += stake;
    }
  }
  return meets(yes, total - abstain, threshold);
};

const drepsAccept = (p: RatifyProposal, s: RatifyState, env: RatifyEnv): boolean => {
  const threshold = drepThreshold(p, s);
  if (!threshold) return false;
  if (threshold[0] === 0n) return true;
  let yes = 0n;
  let total = 0n;
  for (const d of env.dreps) {
    if (d.kind === "abstain") continue;
    if (d.kind === "noConfidence") {
      total += d.amount;
      if (p.type === "NoConfidence") yes += d.amount;
      continue;
    }
    if (d.activeUntil !== null && env.epoch > d.activeUntil) continue;
    const vote = p.drepVotes.get(d.id);
    if (vote === "Abstain") continue;
    total += d.amount;
    if (vote === "Yes") yes += d.amount;
  }
  return meets(yes, total, threshold);
};

export interface RatifyResult {
  readonly ratified: ReadonlyArray<number>;
  readonly expired: ReadonlyArray<number>;
}

export const ratify = (
  proposals: ReadonlyArray<RatifyProposal>,
  start: RatifyState,
  env: RatifyEnv,
): RatifyResult => {
  const ordered = [...proposals].sort((a, b) =>
    actionPriority[a.type] - actionPriority[b.type] || a.id - b.id
  );
  let s = start;
  let delayed = false;
  const ratified: Array<number> = [];
  const expired: Array<number> = [];
  for (const p of ordered) {
    const onRoot = !p.purpose || s.roots[p.purpose] === p.prev;
    const maxTerm = env.epoch + Number(s.params.committee_max_term_length ?? 0);
    const termsFit = p.type !== "NewCommittee" || p.memberTerms.every((e) => e <= maxTerm);
    if (
      onRoot && termsFit && !delayed && p.withdrawals <= s.treasury &&
      committeeAccepts(p, s, env) && poolsAccept(p, s, env) && drepsAccept(p, s, env)
    ) {
      ratified.push(p.id);
      delayed = delaying.has(p.type);
      s = {
        params: p.type === "ParameterChange" ? { ...s.params, ...p.params } : s.params,
        committee: p.type === "NoConfidence"
          ? null
          : p.type === "NewCommittee"
          ? env.committees.get(p.committee ?? -1) ?? null
          : s.committee,
        roots: p.purpose ? { ...s.roots, [p.purpose]: p.id } : s.roots,
        treasury: s.treasury - p.withdrawals,
      };
    } else if (p.expiration !== null && p.expiration <= env.epoch) {
      expired.push(p.id);
    }
  }
  return { ratified, expired };
};
