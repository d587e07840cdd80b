/**
 * The answers of the Blockfrost dialect's chain endpoints (schemas/blockfrost/chain.ts), field for field as
 * Blockfrost publishes them (`@blockfrost/openapi`: network, network-eras, genesis_content, epoch_content,
 * epoch_param_content, block_content, block_content_txs): lovelace and big counters as decimal strings, times in
 * UNIX seconds, nullable where Blockfrost's are.
 */
import { Schema } from "effect";
import { BfQuantity } from "./wire.ts";

const Nullable = <S extends Schema.Schema.Any>(s: S) => Schema.NullOr(s);
const Hex64 = Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/));

export const BfNetwork = Schema.Struct({
  supply: Schema.Struct({
    max: BfQuantity,
    total: BfQuantity,
    circulating: BfQuantity,
    locked: BfQuantity,
    treasury: BfQuantity,
    reserves: BfQuantity,
  }),
  stake: Schema.Struct({ live: BfQuantity, active: BfQuantity }),
}).annotations({ identifier: "BlockfrostNetwork" });

const EraBound = Schema.Struct({ time: Schema.Int, slot: Schema.Int, epoch: Schema.Int });

export const BfNetworkEras = Schema.Array(Schema.Struct({
  start: EraBound,
  end: EraBound,
  parameters: Schema.Struct({ epoch_length: Schema.Int, slot_length: Schema.Int, safe_zone: Schema.Int }),
})).annotations({ identifier: "BlockfrostNetworkEras" });

export const BfGenesis = Schema.Struct({
  active_slots_coefficient: Schema.Number,
  update_quorum: Schema.Int,
  max_lovelace_supply: BfQuantity,
  network_magic: Schema.Int,
  epoch_length: Schema.Int,
  system_start: Schema.Int,
  slots_per_kes_period: Schema.Int,
  slot_length: Schema.Int,
  max_kes_evolutions: Schema.Int,
  security_param: Schema.Int,
}).annotations({ identifier: "BlockfrostGenesis" });

export const BfEpoch = Schema.Struct({
  epoch: Schema.Int,
  start_time: Schema.Int,
  end_time: Schema.Int,
  first_block_time: Schema.Int,
  last_block_time: Schema.Int,
  block_count: Schema.Int,
  tx_count: Schema.Int,
  output: BfQuantity,
  fees: BfQuantity,
  active_stake: Nullable(BfQuantity),
}).annotations({ identifier: "BlockfrostEpoch" });

const CostModels = Schema.Record({ key: Schema.String, value: Schema.Unknown });

export const BfEpochParameters = Schema.Struct({
  epoch: Schema.Int,
  min_fee_a: Schema.Int,
  min_fee_b: Schema.Int,
  max_block_size: Schema.Int,
  max_tx_size: Schema.Int,
  max_block_header_size: Schema.Int,
  key_deposit: BfQuantity,
  pool_deposit: BfQuantity,
  e_max: Schema.Int,
  n_opt: Schema.Int,
  a0: Schema.Number,
  rho: Schema.Number,
  tau: Schema.Number,
  decentralisation_param: Schema.Number,
  extra_entropy: Nullable(Schema.String),
  protocol_major_ver: Schema.Int,
  protocol_minor_ver: Schema.Int,
  min_utxo: BfQuantity,
  min_pool_cost: BfQuantity,
  nonce: Nullable(Schema.String),
  cost_models: Nullable(CostModels).annotations({
    description: "Each language's cost model by parameter name (deprecated: use cost_models_raw)",
  }),
  cost_models_raw: Nullable(CostModels).annotations({
    description: "Each language's cost model as a list in the ledger's order",
  }),
  price_mem: Nullable(Schema.Number),
  price_step: Nullable(Schema.Number),
  max_tx_ex_mem: Nullable(BfQuantity),
  max_tx_ex_steps: Nullable(BfQuantity),
  max_block_ex_mem: Nullable(BfQuantity),
  max_block_ex_steps: Nullable(BfQuantity),
  max_val_size: Nullable(BfQuantity),
  collateral_percent: Nullable(Schema.Int),
  max_collateral_inputs: Nullable(Schema.Int),
  coins_per_utxo_size: Nullable(BfQuantity),
  coins_per_utxo_word: Nullable(BfQuantity),
  pvt_motion_no_confidence: Nullable(Schema.Number),
  pvt_committee_normal: Nullable(Schema.Number),
  pvt_committee_no_confidence: Nullable(Schema.Number),
  pvt_hard_fork_initiation: Nullable(Schema.Number),
  dvt_motion_no_confidence: Nullable(Schema.Number),
  dvt_committee_normal: Nullable(Schema.Number),
  dvt_committee_no_confidence: Nullable(Schema.Number),
  dvt_update_to_constitution: Nullable(Schema.Number),
  dvt_hard_fork_initiation: Nullable(Schema.Number),
  dvt_p_p_network_group: Nullable(Schema.Number),
  dvt_p_p_economic_group: Nullable(Schema.Number),
  dvt_p_p_technical_group: Nullable(Schema.Number),
  dvt_p_p_gov_group: Nullable(Schema.Number),
  dvt_treasury_withdrawal: Nullable(Schema.Number),
  committee_min_size: Nullable(BfQuantity),
  committee_max_term_length: Nullable(BfQuantity),
  gov_action_lifetime: Nullable(BfQuantity),
  gov_action_deposit: Nullable(BfQuantity),
  drep_deposit: Nullable(BfQuantity),
  drep_activity: Nullable(BfQuantity),
  pvtpp_security_group: Nullable(Schema.Number),
  pvt_p_p_security_group: Nullable(Schema.Number),
  min_fee_ref_script_cost_per_byte: Nullable(Schema.Number),
}).annotations({ identifier: "BlockfrostEpochParameters" });

export const BfBlock = Schema.Struct({
  time: Schema.Int,
  height: Nullable(Schema.Int),
  hash: Hex64,
  slot: Nullable(Schema.Int),
  epoch: Nullable(Schema.Int),
  epoch_slot: Nullable(Schema.Int),
  slot_leader: Schema.String.annotations({
    description: "The producing pool's bech32 id, or db-sync's description of a slot leader that is no pool",
  }),
  size: Schema.Int,
  tx_count: Schema.Int,
  output: Nullable(BfQuantity),
  fees: Nullable(BfQuantity),
  block_vrf: Nullable(Schema.String),
  op_cert: Nullable(Schema.String),
  op_cert_counter: Nullable(BfQuantity),
  previous_block: Nullable(Hex64),
  next_block: Nullable(Hex64),
  confirmations: Schema.Int,
}).annotations({ identifier: "BlockfrostBlock" });

export const BfBlockTxs = Schema.Array(Hex64).annotations({ identifier: "BlockfrostBlockTxs" });
