/**
 * Which of a block's candidate transactions a node's mempool drops before the block: those whose validity
 * interval ended before its slot, and any spending the outputs of one dropped (they come after it in the list).
 */
import type { BlockTx } from "../blocks/block_writer.ts";

export const expiredBefore = (txs: ReadonlyArray<BlockTx>, slot: number): ReadonlyArray<string> => {
  const dropped = new Set<string>();
  for (const t of txs) {
    const body = t.accepted.tx.body();
    const ttl = body.ttl();
    const inputs = body.inputs();
    const spendsDropped = Array.from({ length: inputs.len() }, (_, i) => inputs.get(i))
      .some((i) => dropped.has(i.transaction_id().to_hex()));
    if ((ttl !== undefined && BigInt(slot) >= ttl) || spendsDropped) dropped.add(t.accepted.id);
  }
  return [...dropped];
};
