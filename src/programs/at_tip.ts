/**
 * Answers that follow from the chain's content alone (a block page, a transaction with its outputs' spent-ness,
 * a pool's figures) are the same until the next block: they are cached under the tip's hash, which is itself
 * read at most once a second per network. A new block (or a rollback) changes the hash, so nothing stale is
 * served for more than that second; a burst of identical requests costs one computation.
 */
import { Effect, type Effect as E } from "effect";
import { Cache } from "@layers/cache.ts";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { tip } from "@src/queries/tip.ts";
import { fromSql } from "@src/rest/endpoint.ts";

export const atTip = <A, Err, R>(network: Network, key: string, compute: E.Effect<A, Err, R>) =>
  Effect.gen(function* () {
    const cache = yield* Cache;
    const db = (yield* ChainDatabases).get(network);
    const head = yield* cache.getOrCompute(
      `tip:${network}`,
      "1 second",
      tip(db.sql).pipe(Effect.mapError(fromSql(network))),
    );
    return yield* cache.getOrCompute(`${network}:${key}@${head?.hash ?? "empty"}`, "5 minutes", compute);
  });
