/**
 * Answers that follow from the chain's content alone (a block page, a transaction with its outputs' spent-ness,
 * a pool's figures) are the same until the next block: they are cached under the tip's hash as ChainTips last
 * polled it (once a second). A new block (or a rollback) changes the hash, so nothing stale is served for more
 * than that second; a burst of identical requests costs one computation.
 */
import { Effect, type Effect as E } from "effect";
import { Cache } from "@layers/cache.ts";
import { ChainTips } from "@layers/chain_tips.ts";
import type { Network } from "@schemas/network.ts";

export const atTip = <A, Err, R>(network: Network, key: string, compute: E.Effect<A, Err, R>) =>
  Effect.gen(function* () {
    const cache = yield* Cache;
    const head = (yield* ChainTips).get(network).current();
    return yield* cache.getOrCompute(`${network}:${key}@${head?.hash ?? "empty"}`, "5 minutes", compute);
  });
