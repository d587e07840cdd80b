/**
 * A Conway protocol parameter update (the body of a ParameterChange action) as the ledger sees it: which DRep
 * group each parameter belongs to and whether it is security relevant (Conway PParams' THKD groups), whether the
 * update is well formed (ppuWellFormed), its JSON in the ledger's names (what db-sync puts in
 * gov_action_proposal.description) and its values under the columns param_proposal and epoch_param share.
 * Cost models are recognised and grouped but not written to columns (their cost_model row is left out).
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";

export type DrepGroup = "network" | "economic" | "technical" | "gov";

/** A column value of param_proposal / epoch_param: integers as decimal text, fractions as numbers. */
export type ParamColumnValue = string | number;

interface ParamEntry {
  readonly name: string;
  readonly group: DrepGroup;
  readonly security: boolean;
  /** The update's value: its JSON, its columns, and whether it is zero (for the well-formedness rule). */
  readonly read: (
    u: CML.ProtocolParamUpdate,
  ) => { json: unknown; columns: Record<string, ParamColumnValue>; zero: boolean } | undefined;
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

/** A ratio as the ledger's BoundedRatio JSON: a decimal when it terminates, else numerator and denominator. */
export const ratioJson = (n: bigint, d: bigint): unknown => {
  const g = gcd(n, d) || 1n;
  const [num, den] = [n / g, d / g];
  let rest = den;
  let decimals = 0;
  while (rest % 10n === 0n) [rest, decimals] = [rest / 10n, decimals + 1];
  while (rest % 2n === 0n) [rest, decimals] = [rest / 2n, decimals + 1];
  while (rest % 5n === 0n) [rest, decimals] = [rest / 5n, decimals + 1];
  if (rest !== 1n || decimals > 19) return { numerator: Number(num), denominator: Number(den) };
  const scaled = (num * 10n ** BigInt(decimals)) / den;
  const text = scaled.toString().padStart(decimals + 1, "0");
  return Number(decimals === 0 ? text : `${text.slice(0, -decimals)}.${text.slice(-decimals)}`);
};

const ratio = (
  r: { numerator?: () => bigint; denominator?: () => bigint; start?: () => bigint; end?: () => bigint },
) => r.numerator ? [r.numerator(), r.denominator!()] as const : [r.start!(), r.end!()] as const;

const asNumber = (n: bigint, d: bigint) => Number(n) / Number(d);

const coin = (
  name: string,
  group: DrepGroup,
  security: boolean,
  column: string,
  get: (u: CML.ProtocolParamUpdate) => bigint | undefined,
): ParamEntry => ({
  name,
  group,
  security,
  read: (u) => {
    const v = get(u);
    return v === undefined
      ? undefined
      : { json: Number(v), columns: { [column]: String(v) }, zero: v === 0n };
  },
});

/** A small count stored in an integer column (a number, not decimal text like lovelace). */
const count = (
  name: string,
  group: DrepGroup,
  security: boolean,
  column: string,
  get: (u: CML.ProtocolParamUpdate) => bigint | undefined,
  o: { readonly mayBeZero?: boolean } = {},
): ParamEntry => ({
  name,
  group,
  security,
  read: (u) => {
    const v = get(u);
    return v === undefined
      ? undefined
      : { json: Number(v), columns: { [column]: Number(v) }, zero: !o.mayBeZero && v === 0n };
  },
});

const fraction = (
  name: string,
  group: DrepGroup,
  security: boolean,
  column: string,
  get: (u: CML.ProtocolParamUpdate) => CML.Rational | CML.UnitInterval | undefined,
): ParamEntry => ({
  name,
  group,
  security,
  read: (u) => {
    const v = get(u);
    if (!v) return undefined;
    const [n, d] = ratio(v as never);
    return { json: ratioJson(n, d), columns: { [column]: asNumber(n, d) }, zero: n === 0n };
  },
});

const units = (
  name: string,
  group: DrepGroup,
  security: boolean,
  prefix: string,
  get: (u: CML.ProtocolParamUpdate) => CML.ExUnits | undefined,
): ParamEntry => ({
  name,
  group,
  security,
  read: (u) => {
    const v = get(u);
    return v
      ? {
        json: { memory: Number(v.mem()), steps: Number(v.steps()) },
        columns: { [`${prefix}_mem`]: String(v.mem()), [`${prefix}_steps`]: String(v.steps()) },
        zero: false,
      }
      : undefined;
  },
});

const interval = (i: CML.UnitInterval) => [i.start(), i.end()] as const;

/** Conway's updatable parameters in the ledger's order (eraPParams). */
const entries: ReadonlyArray<ParamEntry> = [
  coin("txFeePerByte", "economic", true, "min_fee_a", (u) => u.minfee_a()),
  coin("txFeeFixed", "economic", true, "min_fee_b", (u) => u.minfee_b()),
  coin("maxBlockBodySize", "network", true, "max_block_size", (u) => u.max_block_body_size()),
  coin("maxTxSize", "network", true, "max_tx_size", (u) => u.max_transaction_size()),
  coin("maxBlockHeaderSize", "network", true, "max_bh_size", (u) => u.max_block_header_size()),
  coin("stakeAddressDeposit", "economic", false, "key_deposit", (u) => u.key_deposit()),
  coin("stakePoolDeposit", "economic", false, "pool_deposit", (u) => u.pool_deposit()),
  coin("poolRetireMaxEpoch", "technical", false, "max_epoch", (u) => u.maximum_epoch()),
  coin("stakePoolTargetNum", "technical", false, "optimal_pool_count", (u) => u.n_opt()),
  fraction("poolPledgeInfluence", "technical", false, "influence", (u) => u.pool_pledge_influence()),
  fraction("monetaryExpansion", "economic", false, "monetary_expand_rate", (u) => u.expansion_rate()),
  fraction("treasuryCut", "economic", false, "treasury_growth_rate", (u) => u.treasury_growth_rate()),
  coin("minPoolCost", "economic", false, "min_pool_cost", (u) => u.min_pool_cost()),
  coin("utxoCostPerByte", "economic", true, "coins_per_utxo_size", (u) => u.ada_per_utxo_byte()),
  {
    name: "costModels",
    group: "technical",
    security: false,
    read: (u) => {
      const models = u.cost_models_for_script_languages();
      if (!models) return undefined;
      const names = ["PlutusV1", "PlutusV2", "PlutusV3"];
      const json: Record<string, Array<number>> = {};
      const inner = models.inner();
      const keys = inner.keys();
      for (const key of keys) {
        const costs = inner.get(key)!;
        json[names[Number(key)] ?? String(key)] = Array.from(costs, Number);
      }
      return { json, columns: {}, zero: false };
    },
  },
  {
    name: "executionUnitPrices",
    group: "economic",
    security: false,
    read: (u) => {
      const p = u.execution_costs();
      if (!p) return undefined;
      const [mn, md] = ratio(p.mem_price() as never);
      const [sn, sd] = ratio(p.step_price() as never);
      return {
        json: { priceSteps: ratioJson(sn, sd), priceMemory: ratioJson(mn, md) },
        columns: { price_mem: asNumber(mn, md), price_step: asNumber(sn, sd) },
        zero: false,
      };
    },
  },
  units("maxTxExecutionUnits", "network", false, "max_tx_ex", (u) => u.max_tx_ex_units()),
  units("maxBlockExecutionUnits", "network", true, "max_block_ex", (u) => u.max_block_ex_units()),
  coin("maxValueSize", "network", true, "max_val_size", (u) => u.max_value_size()),
  count("collateralPercentage", "technical", false, "collateral_percent", (u) => u.collateral_percentage()),
  // the only count the ledger lets a parameter update set to zero (ppuWellFormed does not list it)
  count("maxCollateralInputs", "network", false, "max_collateral_inputs", (u) => u.max_collateral_inputs(), {
    mayBeZero: true,
  }),
  {
    name: "poolVotingThresholds",
    group: "gov",
    security: false,
    read: (u) => {
      const t = u.pool_voting_thresholds();
      if (!t) return undefined;
      const all = {
        motionNoConfidence: interval(t.motion_no_confidence()),
        committeeNormal: interval(t.committee_normal()),
        committeeNoConfidence: interval(t.committee_no_confidence()),
        hardForkInitiation: interval(t.hard_fork_initiation()),
        ppSecurityGroup: interval(t.security_relevant_parameter_voting_threshold()),
      };
      const columns = {
        pvt_motion_no_confidence: all.motionNoConfidence,
        pvt_committee_normal: all.committeeNormal,
        pvt_committee_no_confidence: all.committeeNoConfidence,
        pvt_hard_fork_initiation: all.hardForkInitiation,
        pvtpp_security_group: all.ppSecurityGroup,
      };
      return {
        json: Object.fromEntries(Object.entries(all).map(([k, [n, d]]) => [k, ratioJson(n, d)])),
        columns: Object.fromEntries(Object.entries(columns).map(([k, [n, d]]) => [k, asNumber(n, d)])),
        zero: false,
      };
    },
  },
  {
    name: "dRepVotingThresholds",
    group: "gov",
    security: false,
    read: (u) => {
      const t = u.d_rep_voting_thresholds();
      if (!t) return undefined;
      const all = {
        motionNoConfidence: ["dvt_motion_no_confidence", interval(t.motion_no_confidence())],
        committeeNormal: ["dvt_committee_normal", interval(t.committee_normal())],
        committeeNoConfidence: ["dvt_committee_no_confidence", interval(t.committee_no_confidence())],
        updateToConstitution: ["dvt_update_to_constitution", interval(t.update_constitution())],
        hardForkInitiation: ["dvt_hard_fork_initiation", interval(t.hard_fork_initiation())],
        ppNetworkGroup: ["dvt_p_p_network_group", interval(t.pp_network_group())],
        ppEconomicGroup: ["dvt_p_p_economic_group", interval(t.pp_economic_group())],
        ppTechnicalGroup: ["dvt_p_p_technical_group", interval(t.pp_technical_group())],
        ppGovGroup: ["dvt_p_p_gov_group", interval(t.pp_governance_group())],
        treasuryWithdrawal: ["dvt_treasury_withdrawal", interval(t.treasury_withdrawal())],
      } as const;
      return {
        json: Object.fromEntries(Object.entries(all).map(([k, [, [n, d]]]) => [k, ratioJson(n, d)])),
        columns: Object.fromEntries(Object.values(all).map(([c, [n, d]]) => [c, asNumber(n, d)])),
        zero: false,
      };
    },
  },
  coin("committeeMinSize", "gov", false, "committee_min_size", (u) => u.min_committee_size()),
  coin("committeeMaxTermLength", "gov", false, "committee_max_term_length", (u) => u.committee_term_limit()),
  coin(
    "govActionLifetime",
    "gov",
    false,
    "gov_action_lifetime",
    (u) => u.governance_action_validity_period(),
  ),
  coin("govActionDeposit", "gov", true, "gov_action_deposit", (u) => u.governance_action_deposit()),
  coin("dRepDeposit", "gov", false, "drep_deposit", (u) => u.d_rep_deposit()),
  coin("dRepActivity", "gov", false, "drep_activity", (u) => u.d_rep_inactivity_period()),
  fraction(
    "minFeeRefScriptCostPerByte",
    "economic",
    true,
    "min_fee_ref_script_cost_per_byte",
    (u) => u.min_fee_ref_script_cost_per_byte(),
  ),
];

/** Parameters that may not be set to zero (Conway's ppuWellFormed; utxoCostPerByte since the bootstrap). */
const nonZero = new Set([
  "maxBlockBodySize",
  "maxTxSize",
  "maxBlockHeaderSize",
  "maxValueSize",
  "collateralPercentage",
  "committeeMaxTermLength",
  "govActionLifetime",
  "stakePoolDeposit",
  "govActionDeposit",
  "dRepDeposit",
  "utxoCostPerByte",
]);

/** The ledger names of the security-relevant parameters (stake pools vote on updates touching them). */
export const securityParamNames: ReadonlySet<string> = new Set(
  entries.filter((e) => e.security).map((e) => e.name),
);

export interface ParamUpdate {
  /** The ledger's JSON of the update (PParamsUpdate's key-value pairs). */
  readonly json: Record<string, unknown>;
  /** param_proposal / epoch_param columns the update sets. */
  readonly columns: Record<string, ParamColumnValue>;
  readonly groups: ReadonlySet<DrepGroup>;
  /** Whether a security-relevant parameter changes (stake pools vote then). */
  readonly security: boolean;
  /** ppuWellFormed: not empty, and no parameter that must not be zero set to zero. */
  readonly wellFormed: boolean;
}

export const readParamUpdate = (u: CML.ProtocolParamUpdate): ParamUpdate => {
  const json: Record<string, unknown> = {};
  const columns: Record<string, ParamColumnValue> = {};
  const groups = new Set<DrepGroup>();
  let security = false;
  let wellFormed = true;
  for (const e of entries) {
    const value = e.read(u);
    if (!value) continue;
    json[e.name] = value.json;
    Object.assign(columns, value.columns);
    groups.add(e.group);
    security ||= e.security;
    if (value.zero && nonZero.has(e.name)) wellFormed = false;
  }
  return { json, columns, groups, security, wellFormed: wellFormed && Object.keys(json).length > 0 };
};

/** The DRep threshold column of each group (the highest of the groups touched applies). */
export const groupThresholdColumn: Readonly<Record<DrepGroup, string>> = {
  network: "dvt_p_p_network_group",
  economic: "dvt_p_p_economic_group",
  technical: "dvt_p_p_technical_group",
  gov: "dvt_p_p_gov_group",
};

/** Each updatable epoch_param / param_proposal column, with its DRep group and whether it is security relevant. */
export const paramColumns: Readonly<
  Record<string, { readonly group: DrepGroup; readonly security: boolean }>
> = {
  min_fee_a: { group: "economic", security: true },
  min_fee_b: { group: "economic", security: true },
  max_block_size: { group: "network", security: true },
  max_tx_size: { group: "network", security: true },
  max_bh_size: { group: "network", security: true },
  key_deposit: { group: "economic", security: false },
  pool_deposit: { group: "economic", security: false },
  max_epoch: { group: "technical", security: false },
  optimal_pool_count: { group: "technical", security: false },
  influence: { group: "technical", security: false },
  monetary_expand_rate: { group: "economic", security: false },
  treasury_growth_rate: { group: "economic", security: false },
  min_pool_cost: { group: "economic", security: false },
  coins_per_utxo_size: { group: "economic", security: true },
  price_mem: { group: "economic", security: false },
  price_step: { group: "economic", security: false },
  max_tx_ex_mem: { group: "network", security: false },
  max_tx_ex_steps: { group: "network", security: false },
  max_block_ex_mem: { group: "network", security: true },
  max_block_ex_steps: { group: "network", security: true },
  max_val_size: { group: "network", security: true },
  collateral_percent: { group: "technical", security: false },
  max_collateral_inputs: { group: "network", security: false },
  pvt_motion_no_confidence: { group: "gov", security: false },
  pvt_committee_normal: { group: "gov", security: false },
  pvt_committee_no_confidence: { group: "gov", security: false },
  pvt_hard_fork_initiation: { group: "gov", security: false },
  pvtpp_security_group: { group: "gov", security: false },
  dvt_motion_no_confidence: { group: "gov", security: false },
  dvt_committee_normal: { group: "gov", security: false },
  dvt_committee_no_confidence: { group: "gov", security: false },
  dvt_update_to_constitution: { group: "gov", security: false },
  dvt_hard_fork_initiation: { group: "gov", security: false },
  dvt_p_p_network_group: { group: "gov", security: false },
  dvt_p_p_economic_group: { group: "gov", security: false },
  dvt_p_p_technical_group: { group: "gov", security: false },
  dvt_p_p_gov_group: { group: "gov", security: false },
  dvt_treasury_withdrawal: { group: "gov", security: false },
  committee_min_size: { group: "gov", security: false },
  committee_max_term_length: { group: "gov", security: false },
  gov_action_lifetime: { group: "gov", security: false },
  gov_action_deposit: { group: "gov", security: true },
  drep_deposit: { group: "gov", security: false },
  drep_activity: { group: "gov", security: false },
  min_fee_ref_script_cost_per_byte: { group: "economic", security: true },
};
