/**
 * One block with its confirmations, and a block's transactions, by hash, number or `latest` (the tip as
 * ChainTips last polled it): the explorer's block programs (cached at the tip) plus the tip's height.
 */
import { Effect } from "effect";
import { ChainTips } from "@layers/chain_tips.ts";
import type { Network } from "@schemas/network.ts";
import { NotFoundError } from "@src/domain/errors.ts";
import { block, blockTransactions, reportedTip } from "./explorer.ts";

export type BlockRef = number | string | "latest";

/** The tip's block number: ChainTips' (no query) unless it has none (an empty chain, a Byron boundary block). */
const tipHeight = (network: Network) =>
  Effect.gen(function* () {
    const polled = (yield* ChainTips).get(network).current()?.height;
    if (polled !== undefined && polled !== null) return polled;
    const tip = yield* reportedTip(network);
    if (!tip) return yield* new NotFoundError({ message: `The ${network} chain holds no block yet` });
    return tip.blockNo;
  });

export const chainBlock = Effect.fnUntraced(function* (network: Network, ref: BlockRef) {
  const height = yield* tipHeight(network);
  const found = yield* block(network, ref === "latest" ? height : ref);
  // a block newer than the polled tip has no confirmations yet
  return { block: found, confirmations: Math.max(0, height - found.blockNo) };
});

export const chainBlockTransactions = Effect.fnUntraced(
  function* (network: Network, ref: BlockRef, page: number, count: number, order: "asc" | "desc") {
    const id = ref === "latest" ? yield* tipHeight(network) : ref;
    return yield* blockTransactions(network, id, page, count, order);
  },
);
