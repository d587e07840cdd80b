/**
 * An epoch's protocol parameters: its `epoch_param` row (one per epoch, written at its start; the newest is the
 * set in force) and its cost models (`cost_model.costs`, JSON keyed PlutusV1/V2/V3). Numeric(20,0) columns
 * arrive as decimal strings.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import type { EpochParamRow } from "@src/domain/protocol_parameters.ts";

/** The row this query returns (its shape is the domain's: src/domain/protocol_parameters.ts converts it). */
export type { EpochParamRow };

/** One epoch's parameters, or the newest (epoch_param has one row per epoch, ~600 on mainnet: no index needed). */
export const epochParams = (
  sql: SqlClient,
  epoch?: number,
): Effect.Effect<EpochParamRow | undefined, SqlError> =>
  Effect.map(
    sql<EpochParamRow>`
      select p.epoch_no as "epochNo", p.min_fee_a as "minFeeA", p.min_fee_b as "minFeeB",
        p.max_block_size as "maxBlockSize", p.max_tx_size as "maxTxSize", p.max_bh_size as "maxBhSize",
        p.key_deposit::text as "keyDeposit", p.pool_deposit::text as "poolDeposit", p.max_epoch as "maxEpoch",
        p.optimal_pool_count as "optimalPoolCount", p.influence, p.monetary_expand_rate as "monetaryExpandRate",
        p.treasury_growth_rate as "treasuryGrowthRate", p.protocol_major as "protocolMajor",
        p.protocol_minor as "protocolMinor", p.min_pool_cost::text as "minPoolCost",
        p.coins_per_utxo_size::text as "coinsPerUtxoSize", p.price_mem as "priceMem", p.price_step as "priceStep",
        p.max_tx_ex_mem::text as "maxTxExMem", p.max_tx_ex_steps::text as "maxTxExSteps",
        p.max_block_ex_mem::text as "maxBlockExMem", p.max_block_ex_steps::text as "maxBlockExSteps",
        p.max_val_size::text as "maxValSize", p.collateral_percent as "collateralPercent",
        p.max_collateral_inputs as "maxCollateralInputs",
        p.pvt_motion_no_confidence as "pvtMotionNoConfidence", p.pvt_committee_normal as "pvtCommitteeNormal",
        p.pvt_committee_no_confidence as "pvtCommitteeNoConfidence",
        p.pvt_hard_fork_initiation as "pvtHardForkInitiation", p.pvtpp_security_group as "pvtppSecurityGroup",
        p.dvt_motion_no_confidence as "dvtMotionNoConfidence", p.dvt_committee_normal as "dvtCommitteeNormal",
        p.dvt_committee_no_confidence as "dvtCommitteeNoConfidence",
        p.dvt_update_to_constitution as "dvtUpdateToConstitution",
        p.dvt_hard_fork_initiation as "dvtHardForkInitiation", p.dvt_p_p_network_group as "dvtPPNetworkGroup",
        p.dvt_p_p_economic_group as "dvtPPEconomicGroup", p.dvt_p_p_technical_group as "dvtPPTechnicalGroup",
        p.dvt_p_p_gov_group as "dvtPPGovGroup", p.dvt_treasury_withdrawal as "dvtTreasuryWithdrawal",
        p.committee_min_size::text as "committeeMinSize",
        p.committee_max_term_length::text as "committeeMaxTermLength",
        p.gov_action_lifetime::text as "govActionLifetime", p.gov_action_deposit::text as "govActionDeposit",
        p.drep_deposit::text as "drepDeposit", p.drep_activity::text as "drepActivity",
        p.min_fee_ref_script_cost_per_byte as "minFeeRefScriptCostPerByte", c.costs,
        p.decentralisation, encode(p.extra_entropy, 'hex') as "extraEntropy",
        p.min_utxo_value::text as "minUtxoValue", encode(p.nonce, 'hex') as nonce
      from epoch_param p left join cost_model c on c.id = p.cost_model_id
      ${epoch === undefined ? sql`` : sql`where p.epoch_no = ${epoch}`}
      order by p.epoch_no desc limit 1`,
    (rows) => rows[0],
  );

/** The parameters in force: the newest epoch's. */
export const latestEpochParams = (sql: SqlClient): Effect.Effect<EpochParamRow | undefined, SqlError> =>
  epochParams(sql);
