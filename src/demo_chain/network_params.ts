/**
 * The demo chains' fixed facts: per-network identity and genesis, and the Conway protocol parameters (mainnet's
 * values) written to `epoch_param` for every epoch.
 */
import type { Network } from "@schemas/network.ts";

export interface DemoNetwork {
  readonly network: Network;
  /** Address network id (CIP-19): 1 mainnet, 0 test networks. */
  readonly networkId: number;
  readonly protocolMagic: number;
  /** Slot 0 of the demo chain; 1 s slots from here on. */
  readonly systemStart: Date;
  readonly seed: string;
}

export const demoNetworks: Readonly<Record<Network, DemoNetwork>> = {
  mainnet: {
    network: "mainnet",
    networkId: 1,
    protocolMagic: 764824073,
    systemStart: new Date("2026-08-01T00:00:00Z"),
    seed: "cardano-data-service/demo/mainnet/v1",
  },
  preprod: {
    network: "preprod",
    networkId: 0,
    protocolMagic: 1,
    systemStart: new Date("2026-08-15T00:00:00Z"),
    seed: "cardano-data-service/demo/preprod/v1",
  },
};

export const epochLength = 432_000;
/** 45 billion ADA: every lovelace is in exactly one of the ada_pots buckets. */
export const maxSupply = 45_000_000_000_000_000n;
export const ada = 1_000_000;

/** Conway parameters as on mainnet (protocol 10.0), used as given by the generator's ledger rules. */
export const protocol = {
  minFeeA: 44,
  minFeeB: 155_381,
  maxBlockSize: 90_112,
  maxTxSize: 16_384,
  maxBhSize: 1_100,
  keyDeposit: 2 * ada,
  poolDeposit: 500 * ada,
  maxEpoch: 18,
  optimalPoolCount: 500,
  influence: 0.3,
  monetaryExpandRate: 0.003,
  treasuryGrowthRate: 0.2,
  minPoolCost: 170 * ada,
  priceMem: 0.0577,
  priceStep: 0.0000721,
  maxTxExMem: 14_000_000,
  maxTxExSteps: 10_000_000_000,
  maxBlockExMem: 62_000_000,
  maxBlockExSteps: 20_000_000_000,
  maxValSize: 5_000,
  collateralPercent: 150,
  maxCollateralInputs: 3,
  coinsPerUtxoSize: 4_310,
  govActionLifetime: 6,
  govActionDeposit: 100_000 * ada,
  drepDeposit: 500 * ada,
  drepActivity: 20,
  minFeeRefScriptCostPerByte: 15,
} as const;

/** `epoch_param` columns after `id`, in order, and one epoch's values. */
export const epochParamColumns = [
  "id", "epoch_no", "min_fee_a", "min_fee_b", "max_block_size", "max_tx_size", "max_bh_size", "key_deposit",
  "pool_deposit", "max_epoch", "optimal_pool_count", "influence", "monetary_expand_rate", "treasury_growth_rate",
  "decentralisation", "protocol_major", "protocol_minor", "min_utxo_value", "min_pool_cost", "nonce",
  "cost_model_id", "price_mem", "price_step", "max_tx_ex_mem", "max_tx_ex_steps", "max_block_ex_mem",
  "max_block_ex_steps", "max_val_size", "collateral_percent", "max_collateral_inputs", "block_id",
  "extra_entropy", "coins_per_utxo_size", "pvt_motion_no_confidence", "pvt_committee_normal",
  "pvt_committee_no_confidence", "pvt_hard_fork_initiation", "dvt_motion_no_confidence", "dvt_committee_normal",
  "dvt_committee_no_confidence", "dvt_update_to_constitution", "dvt_hard_fork_initiation",
  "dvt_p_p_network_group", "dvt_p_p_economic_group", "dvt_p_p_technical_group", "dvt_p_p_gov_group",
  "dvt_treasury_withdrawal", "committee_min_size", "committee_max_term_length", "gov_action_lifetime",
  "gov_action_deposit", "drep_deposit", "drep_activity", "pvtpp_security_group",
  "min_fee_ref_script_cost_per_byte",
] as const;

export const epochParamValues = (
  id: number,
  epoch: number,
  nonce: string,
  costModelId: number,
  blockId: number,
) => {
  const p = protocol;
  return [
    id, epoch, p.minFeeA, p.minFeeB, p.maxBlockSize, p.maxTxSize, p.maxBhSize, p.keyDeposit, p.poolDeposit,
    p.maxEpoch, p.optimalPoolCount, p.influence, p.monetaryExpandRate, p.treasuryGrowthRate, 0, 10, 0, 0,
    p.minPoolCost, nonce, costModelId, p.priceMem, p.priceStep, p.maxTxExMem, p.maxTxExSteps, p.maxBlockExMem,
    p.maxBlockExSteps, p.maxValSize, p.collateralPercent, p.maxCollateralInputs, blockId, null,
    p.coinsPerUtxoSize, 0.51, 0.51, 0.51, 0.51, 0.67, 0.67, 0.6, 0.75, 0.6, 0.67, 0.67, 0.5, 0.75, 0.67, 7, 146,
    p.govActionLifetime, p.govActionDeposit, p.drepDeposit, p.drepActivity, 0.51, p.minFeeRefScriptCostPerByte,
  ] as const;
};

export const adjectives = [
  "Alpine", "Amber", "Arctic", "Atlas", "Aurora", "Azure", "Bamboo", "Blue", "Bold", "Bright", "Calm", "Cedar",
  "Cobalt", "Coral", "Cosmic", "Crimson", "Crystal", "Delta", "Emerald", "Falcon", "Fern", "Golden", "Granite",
  "Harbor", "Hidden", "Iron", "Jade", "Lunar", "Maple", "Meadow", "Misty", "Nordic", "Oak", "Ocean", "Onyx",
  "Orbit", "Pacific", "Pine", "Polar", "Quiet", "Rapid", "Red", "River", "Ruby", "Sage", "Silver", "Solar",
  "Spruce", "Stellar", "Stone", "Summit", "Swift", "Terra", "Tidal", "True", "Velvet", "Violet", "Wild", "Zen",
];
export const nouns = [
  "Anchor", "Badger", "Beacon", "Bear", "Bridge", "Canyon", "Castle", "Comet", "Crane", "Creek", "Dragon",
  "Eagle", "Ember", "Field", "Forge", "Fox", "Garden", "Grove", "Hawk", "Heron", "Hill", "Island", "Lake",
  "Lantern", "Lighthouse", "Lion", "Lynx", "Mill", "Moon", "Mountain", "Nest", "Otter", "Owl", "Peak", "Pond",
  "Raven", "Reef", "Ridge", "Rock", "Sail", "Shore", "Sparrow", "Spring", "Star", "Stream", "Tiger", "Tower",
  "Trail", "Valley", "Wave", "Whale", "Willow", "Wolf",
];
export const givenNames = [
  "Ada", "Alan", "Amara", "Ana", "Aron", "Bea", "Carlos", "Chen", "Dara", "Diego", "Elena", "Emeka", "Farah",
  "Finn", "Grace", "Hana", "Hugo", "Ines", "Ivan", "Jae", "Jonas", "Kai", "Kemi", "Lena", "Luca", "Maya",
  "Mateo", "Nia", "Noor", "Olga", "Omar", "Priya", "Quinn", "Rafael", "Rosa", "Sami", "Sofia", "Tariq", "Uma",
  "Vera", "Wei", "Yara", "Yusuf", "Zoe",
];
