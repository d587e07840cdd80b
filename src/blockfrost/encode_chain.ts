/**
 * The chain group's answers in Blockfrost's shapes (schemas/blockfrost/chain_content.ts), from the programs'
 * domain values: supply and stake, blocks, block transactions, the current epoch, genesis and the era summaries.
 */
import type {
  BfBlock,
  BfEpoch,
  BfGenesis,
  BfNetwork,
  BfNetworkEras,
} from "@schemas/blockfrost/chain_content.ts";
import type { Network } from "@schemas/network.ts";
import type { eraSummaries } from "@src/domain/era_summaries.ts";
import {
  activeSlotsCoefficient,
  epochLength,
  maxKesEvolutions,
  maxSupply,
  networkMagic,
  securityParam,
  slotLengthMs,
  slotsPerKesPeriod,
  updateQuorum,
} from "@src/domain/network_constants.ts";
import type { BlockDetail } from "@src/queries/blocks.ts";
import type { BlockTransactionPage } from "@src/queries/block_transactions.ts";
import type { NetworkSupply } from "@src/programs/network_supply.ts";

const unixSeconds = (time: Date | string) => Math.floor(new Date(time).getTime() / 1000);

/** A block; its totals are null when it holds no transaction (as Blockfrost answers). */
export const toBfBlock = (b: BlockDetail, confirmations: number): typeof BfBlock.Type => ({
  time: unixSeconds(b.time),
  height: b.blockNo,
  hash: b.hash,
  slot: b.slotNo,
  epoch: b.epochNo,
  epoch_slot: b.epochSlotNo,
  slot_leader: b.poolId ?? b.slotLeaderDescription ?? "",
  size: b.size,
  tx_count: b.txCount,
  output: b.txCount === 0 ? null : b.totalOutput,
  fees: b.txCount === 0 ? null : b.totalFees,
  block_vrf: b.vrfKey,
  op_cert: b.opCert,
  op_cert_counter: b.opCertCounter,
  previous_block: b.previousHash,
  next_block: b.nextHash,
  confirmations,
});

export const toBfBlockTxs = (page: BlockTransactionPage): ReadonlyArray<string> =>
  page.data.map((t) => t.hash);

export interface EpochFacts {
  readonly epoch: number;
  readonly startTime: Date;
  readonly endTime: Date;
  readonly firstBlockTime: Date;
  readonly lastBlockTime: Date;
  readonly blockCount: number;
  readonly txCount: number;
  readonly output: string;
  readonly fees: string;
  readonly activeStake: string | null;
}

export const toBfEpoch = (e: EpochFacts): typeof BfEpoch.Type => ({
  epoch: e.epoch,
  start_time: unixSeconds(e.startTime),
  end_time: unixSeconds(e.endTime),
  first_block_time: unixSeconds(e.firstBlockTime),
  last_block_time: unixSeconds(e.lastBlockTime),
  block_count: e.blockCount,
  tx_count: e.txCount,
  output: e.output,
  fees: e.fees,
  active_stake: e.activeStake,
});

/** The genesis both networks share (network_constants.ts), the network's magic and its system start. */
export const toBfGenesis = (network: Network, systemStart: Date): typeof BfGenesis.Type => ({
  active_slots_coefficient: activeSlotsCoefficient,
  update_quorum: updateQuorum,
  max_lovelace_supply: maxSupply.toString(),
  network_magic: networkMagic[network],
  epoch_length: epochLength,
  system_start: unixSeconds(systemStart),
  slots_per_kes_period: slotsPerKesPeriod,
  slot_length: slotLengthMs / 1000,
  max_kes_evolutions: maxKesEvolutions,
  security_param: securityParam,
});

/** Ogmios' era summaries with times in whole seconds and slot lengths in seconds. */
export const toBfNetworkEras = (
  summaries: ReturnType<typeof eraSummaries>,
): typeof BfNetworkEras.Type =>
  summaries.map((era) => ({
    start: { time: Math.floor(era.start.time.seconds), slot: era.start.slot, epoch: era.start.epoch },
    end: { time: Math.floor(era.end.time.seconds), slot: era.end.slot, epoch: era.end.epoch },
    parameters: {
      epoch_length: era.parameters.epochLength,
      slot_length: era.parameters.slotLength.milliseconds / 1000,
      safe_zone: era.parameters.safeZone,
    },
  }));

export const toBfNetwork = (s: NetworkSupply): typeof BfNetwork.Type => ({
  supply: {
    max: s.max,
    total: s.total,
    circulating: s.circulating,
    locked: s.locked,
    treasury: s.treasury,
    reserves: s.reserves,
  },
  stake: { live: s.liveStake, active: s.activeStake },
});
