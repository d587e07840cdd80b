/**
 * Writes one block of accepted transactions into the chain database exactly as db-sync would have (the rows of
 * each transaction in tx_rows.ts), in one database transaction: a block is all there or not at all. Crossing
 * into a new epoch writes the boundary rows (epoch/boundary.ts) against the block; the block's pool is drawn by
 * the new epoch's active stake (slot_leader.ts).
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { blake2b } from "@noble/hashes/blake2.js";
import { hex } from "@scure/base";
import { Effect } from "effect";
import { epochOfSlot, slotInEpoch } from "@src/domain/chain_time.ts";
import { slotLengthMs } from "@src/domain/network_constants.ts";
import { Lookups } from "../rows/chain_lookups.ts";
import { writeEpochBoundaries } from "../epoch/boundary.ts";
import type { LedgerParams } from "../rules/ledger_view.ts";
import { RowWriter } from "../rows/row_writer.ts";
import { pickSlotLeader } from "./slot_leader.ts";
import { type BlockTx, writeTransaction } from "../rows/tx_rows.ts";

export type { BlockTx } from "../rows/tx_rows.ts";

export interface WrittenBlock {
  readonly id: number;
  readonly hash: string;
  readonly blockNo: number;
  readonly slot: number;
  readonly epoch: number;
  readonly time: Date;
  readonly txIds: ReadonlyArray<string>;
}

interface Tip {
  readonly id: string;
  readonly hash: Uint8Array;
  readonly blockNo: number;
  readonly epoch: number;
  readonly slot: string;
  readonly epochSlot: number;
  readonly time: Date;
}

const readTip = (sql: SqlClient) =>
  Effect.map(
    sql<Tip>`select id::text as id, hash, block_no as "blockNo", epoch_no as epoch, slot_no::text as slot,
               epoch_slot_no as "epochSlot", time
             from block b where block_no is not null order by b.id desc limit 1`,
    (rows) => rows[0],
  );

const utcText = (d: Date) => d.toISOString().replace("T", " ").replace("Z", "");

/** A block's header hash: db-sync keeps no header, so the devnet derives one from the block's contents. */
const blockHash = (previous: Uint8Array, slot: number, txIds: ReadonlyArray<string>): Uint8Array => {
  const slotBytes = new Uint8Array(8);
  new DataView(slotBytes.buffer).setBigUint64(0, BigInt(slot));
  return blake2b(new Uint8Array([...previous, ...slotBytes, ...txIds.flatMap((t) => [...hex.decode(t)])]), {
    dkLen: 32,
  });
};

export interface BlockOptions {
  readonly networkId: number;
  /** The block's slot; must be past the tip's. */
  readonly slot: number;
  readonly params: LedgerParams;
}

/** Writes the next block holding `txs` (possibly none) at `options.slot`, in one database transaction. */
export const writeBlock = (
  sql: SqlClient,
  txs: ReadonlyArray<BlockTx>,
  options: BlockOptions,
): Effect.Effect<WrittenBlock, SqlError> =>
  sql.withTransaction(Effect.gen(function* () {
    const tip = yield* readTip(sql);
    if (!tip) return yield* Effect.dieMessage("the chain database holds no block to build on");
    const tipSlot = Number(tip.slot);
    const slot = Math.max(options.slot, tipSlot + 1);
    const anchor = { epoch: tip.epoch, slot: tipSlot - tip.epochSlot };
    const epoch = epochOfSlot(anchor, slot);
    const epochSlot = slotInEpoch(anchor, slot);
    const time = new Date(tip.time.getTime() + (slot - tipSlot) * slotLengthMs);
    const w = new RowWriter(sql);
    const lookups = new Lookups(w, options.networkId);
    const blockNo = tip.blockNo + 1;
    const blockId = yield* w.id("block");
    if (epoch > tip.epoch) {
      // wall time, not Effect's Clock: tests move the Clock to cross epochs
      const started = performance.now();
      yield* writeEpochBoundaries(w, { from: tip.epoch, to: epoch, blockId, slot });
      const crossed = epoch - tip.epoch;
      yield* Effect.logInfo(
        `devnet: entered epoch ${epoch} (${crossed} ${crossed === 1 ? "boundary" : "boundaries"}) in ${
          Math.round(performance.now() - started)
        } ms`,
      );
    }
    // after the boundary: the new epoch's active stake decides who made the block
    const leader = yield* pickSlotLeader(sql, { epoch, blockNo });
    const hash = blockHash(tip.hash, slot, txs.map((t) => t.accepted.id));
    yield* w.insert("block", {
      id: blockId,
      hash: w.bytea(hash),
      epoch_no: epoch,
      slot_no: slot,
      epoch_slot_no: epochSlot,
      block_no: blockNo,
      previous_id: Number(tip.id),
      slot_leader_id: leader?.slotLeaderId ?? 1,
      size: 860 + txs.reduce((s, t) => s + t.accepted.size, 0),
      time: utcText(time),
      tx_count: txs.length,
      proto_major: options.params.row.protocolMajor,
      proto_minor: options.params.row.protocolMinor,
      vrf_key: leader?.vrfKey ?? null,
      op_cert: leader?.opCert ? w.bytea(leader.opCert) : null,
      op_cert_counter: leader?.counter ?? null,
    });
    for (let index = 0; index < txs.length; index++) {
      yield* writeTransaction(w, lookups, options.params, txs[index]!, { id: blockId, index, epoch, slot });
    }
    return {
      id: blockId,
      hash: hex.encode(hash),
      blockNo,
      slot,
      epoch,
      time,
      txIds: txs.map((t) => t.accepted.id),
    };
  }));
