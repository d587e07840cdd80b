/**
 * An epoch's protocol parameters in Blockfrost's `epoch_param_content` shape, from db-sync's row as the programs
 * give it: the cost models both as lists in ledger order (`cost_models_raw`, what Lucid and Mesh read) and by
 * parameter name (`cost_models`, deprecated; a language whose model is longer than the names known is left out
 * there), and the deprecated aliases Blockfrost still answers (`coins_per_utxo_word`, `pvtpp_security_group`).
 */
import type { BfEpochParameters } from "@schemas/blockfrost/chain_content.ts";
import { costModelsInLedgerOrder, namedCostModel, plutusLanguages } from "@src/domain/cost_model_names.ts";
import type { EpochParamRow } from "@src/domain/protocol_parameters.ts";

const costModelsOf = (costs: EpochParamRow["costs"]) => {
  if (costs === null) return { raw: null, named: null };
  const raw = costModelsInLedgerOrder(costs);
  const named: Record<string, Record<string, number>> = {};
  for (const language of plutusLanguages) {
    const values = raw[language];
    const model = values && namedCostModel(language, values);
    if (model) named[language] = model;
  }
  return { raw, named };
};

export const toBfEpochParameters = (p: EpochParamRow): typeof BfEpochParameters.Type => {
  const costModels = costModelsOf(p.costs);
  return {
    epoch: p.epochNo,
    min_fee_a: p.minFeeA,
    min_fee_b: p.minFeeB,
    max_block_size: p.maxBlockSize,
    max_tx_size: p.maxTxSize,
    max_block_header_size: p.maxBhSize,
    key_deposit: p.keyDeposit,
    pool_deposit: p.poolDeposit,
    e_max: p.maxEpoch,
    n_opt: p.optimalPoolCount,
    a0: p.influence,
    rho: p.monetaryExpandRate,
    tau: p.treasuryGrowthRate,
    decentralisation_param: p.decentralisation,
    extra_entropy: p.extraEntropy,
    protocol_major_ver: p.protocolMajor,
    protocol_minor_ver: p.protocolMinor,
    min_utxo: p.minUtxoValue,
    min_pool_cost: p.minPoolCost,
    nonce: p.nonce,
    cost_models: costModels.named,
    cost_models_raw: costModels.raw,
    price_mem: p.priceMem,
    price_step: p.priceStep,
    max_tx_ex_mem: p.maxTxExMem,
    max_tx_ex_steps: p.maxTxExSteps,
    max_block_ex_mem: p.maxBlockExMem,
    max_block_ex_steps: p.maxBlockExSteps,
    max_val_size: p.maxValSize,
    collateral_percent: p.collateralPercent,
    max_collateral_inputs: p.maxCollateralInputs,
    coins_per_utxo_size: p.coinsPerUtxoSize,
    coins_per_utxo_word: p.coinsPerUtxoSize,
    pvt_motion_no_confidence: p.pvtMotionNoConfidence,
    pvt_committee_normal: p.pvtCommitteeNormal,
    pvt_committee_no_confidence: p.pvtCommitteeNoConfidence,
    pvt_hard_fork_initiation: p.pvtHardForkInitiation,
    dvt_motion_no_confidence: p.dvtMotionNoConfidence,
    dvt_committee_normal: p.dvtCommitteeNormal,
    dvt_committee_no_confidence: p.dvtCommitteeNoConfidence,
    dvt_update_to_constitution: p.dvtUpdateToConstitution,
    dvt_hard_fork_initiation: p.dvtHardForkInitiation,
    dvt_p_p_network_group: p.dvtPPNetworkGroup,
    dvt_p_p_economic_group: p.dvtPPEconomicGroup,
    dvt_p_p_technical_group: p.dvtPPTechnicalGroup,
    dvt_p_p_gov_group: p.dvtPPGovGroup,
    dvt_treasury_withdrawal: p.dvtTreasuryWithdrawal,
    committee_min_size: p.committeeMinSize,
    committee_max_term_length: p.committeeMaxTermLength,
    gov_action_lifetime: p.govActionLifetime,
    gov_action_deposit: p.govActionDeposit,
    drep_deposit: p.drepDeposit,
    drep_activity: p.drepActivity,
    pvtpp_security_group: p.pvtppSecurityGroup,
    pvt_p_p_security_group: p.pvtppSecurityGroup,
    min_fee_ref_script_cost_per_byte: p.minFeeRefScriptCostPerByte,
  };
};
