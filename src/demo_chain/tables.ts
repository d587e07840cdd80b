/**
 * The db-sync tables the demo chain writes, each with its columns in the order the generator's rows give them,
 * so one map keeps every row writer and the COPY statements in step.
 */
import type { CopySink } from "./copy_sink.ts";
import { epochParamColumns } from "./network_params.ts";

// deno-fmt-ignore
const tables: Record<string, ReadonlyArray<string>> = {
  meta: ["id", "start_time", "network_name", "version"],
  schema_version: [],
  slot_leader: ["id", "hash", "pool_hash_id", "description"],
  block: ["id", "hash", "epoch_no", "slot_no", "epoch_slot_no", "block_no", "previous_id", "slot_leader_id", "size", "time", "tx_count", "proto_major", "proto_minor", "vrf_key", "op_cert", "op_cert_counter"],
  tx: ["id", "hash", "block_id", "block_index", "out_sum", "fee", "deposit", "size", "invalid_before", "invalid_hereafter", "valid_contract", "script_size", "treasury_donation"],
  tx_out: ["id", "tx_id", "index", "address", "address_has_script", "payment_cred", "stake_address_id", "value", "data_hash", "inline_datum_id", "reference_script_id", "consumed_by_tx_id"],
  tx_in: ["id", "tx_in_id", "tx_out_id", "tx_out_index", "redeemer_id"],
  collateral_tx_in: ["id", "tx_in_id", "tx_out_id", "tx_out_index"],
  collateral_tx_out: ["id", "tx_id", "index", "address", "address_has_script", "payment_cred", "stake_address_id", "value", "data_hash", "multi_assets_descr", "inline_datum_id", "reference_script_id"],
  reference_tx_in: ["id", "tx_in_id", "tx_out_id", "tx_out_index"],
  multi_asset: ["id", "policy", "name", "fingerprint"],
  ma_tx_out: ["id", "quantity", "tx_out_id", "ident"],
  ma_tx_mint: ["id", "quantity", "tx_id", "ident"],
  stake_address: ["id", "hash_raw", "view", "script_hash"],
  stake_registration: ["id", "addr_id", "cert_index", "epoch_no", "tx_id", "deposit"],
  stake_deregistration: ["id", "addr_id", "cert_index", "epoch_no", "tx_id", "redeemer_id"],
  delegation: ["id", "addr_id", "cert_index", "pool_hash_id", "active_epoch_no", "tx_id", "slot_no", "redeemer_id"],
  delegation_vote: ["id", "addr_id", "cert_index", "drep_hash_id", "tx_id", "redeemer_id"],
  withdrawal: ["id", "addr_id", "amount", "redeemer_id", "tx_id"],
  reward: ["addr_id", "type", "amount", "spendable_epoch", "pool_id", "earned_epoch"],
  reward_rest: ["addr_id", "type", "amount", "spendable_epoch", "earned_epoch"],
  epoch_stake: ["id", "addr_id", "pool_id", "amount", "epoch_no"],
  epoch_stake_progress: ["id", "epoch_no", "completed"],
  ada_pots: ["id", "slot_no", "epoch_no", "treasury", "reserves", "rewards", "utxo", "deposits_stake", "fees", "block_id", "deposits_drep", "deposits_proposal"],
  epoch_param: epochParamColumns,
  cost_model: ["id", "costs", "hash"],
  epoch_finalized: ["id", "out_sum", "fees", "tx_count", "blk_count", "no", "start_time", "end_time"],
  epoch_sync_enabled: ["singleton", "enabled"],
  pool_hash: ["id", "hash_raw", "view"],
  pool_update: ["id", "hash_id", "cert_index", "vrf_key_hash", "pledge", "active_epoch_no", "meta_id", "margin", "fixed_cost", "registered_tx_id", "reward_addr_id", "deposit"],
  pool_owner: ["id", "addr_id", "pool_update_id"],
  pool_relay: ["id", "update_id", "ipv4", "ipv6", "dns_name", "dns_srv_name", "port"],
  pool_retire: ["id", "hash_id", "cert_index", "announced_tx_id", "retiring_epoch"],
  pool_metadata_ref: ["id", "pool_id", "url", "hash", "registered_tx_id"],
  off_chain_pool_data: ["id", "pool_id", "ticker_name", "hash", "json", "bytes", "pmr_id"],
  drep_hash: ["id", "raw", "view", "has_script"],
  drep_registration: ["id", "tx_id", "cert_index", "deposit", "drep_hash_id", "voting_anchor_id"],
  drep_distr: ["id", "hash_id", "amount", "epoch_no", "active_until"],
  voting_anchor: ["id", "url", "data_hash", "type", "block_id"],
  off_chain_vote_data: ["id", "voting_anchor_id", "hash", "json", "bytes", "warning", "language", "comment", "is_valid"],
  off_chain_vote_drep_data: ["id", "off_chain_vote_data_id", "payment_address", "given_name", "objectives", "motivations", "qualifications", "image_url", "image_hash"],
  gov_action_proposal: ["id", "tx_id", "index", "prev_gov_action_proposal", "deposit", "return_address", "expiration", "voting_anchor_id", "type", "description", "param_proposal", "ratified_epoch", "enacted_epoch", "dropped_epoch", "expired_epoch"],
  voting_procedure: ["id", "tx_id", "index", "gov_action_proposal_id", "voter_role", "drep_voter", "pool_voter", "vote", "voting_anchor_id", "committee_voter", "invalid"],
  datum: ["id", "hash", "tx_id", "value", "bytes"],
  script: ["id", "tx_id", "hash", "type", "json", "bytes", "serialised_size"],
  redeemer: ["id", "tx_id", "unit_mem", "unit_steps", "fee", "purpose", "index", "script_hash", "redeemer_data_id"],
  redeemer_data: ["id", "hash", "tx_id", "value", "bytes"],
  tx_metadata: ["id", "key", "json", "bytes", "tx_id"],
  extra_key_witness: ["id", "hash", "tx_id"],
};

/** Declares every table the generator writes, in the column order its rows use. */
export const defineTables = (sink: CopySink): void => {
  for (const [name, columns] of Object.entries(tables)) if (columns.length > 0) sink.define(name, columns);
};
