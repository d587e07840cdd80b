/**
 * The explorer's block and statistics programs (`/v2/explorer/{network}/blocks|block/{id}|block/{id}/txs|
 * stats`): the queries of src/queries/blocks.ts, block_transactions.ts and network_stats.ts, with what changes
 * once an epoch cached per epoch and the transaction total cached for 20 s.
 */
import { Effect } from "effect";
import { Cache } from "@layers/cache.ts";
import { ChainDatabases } from "@layers/chain_db.ts";
import { ChainTips } from "@layers/chain_tips.ts";
import type { Network } from "@schemas/network.ts";
import { blockById, recentBlocks } from "@src/queries/blocks.ts";
import { blockTransactions as blockTransactionsQuery } from "@src/queries/block_transactions.ts";
import { epochFigures, tipPosition, totalTransactions } from "@src/queries/network_stats.ts";
import { atTip } from "./at_tip.ts";
import { fromSql, NotFoundError } from "@src/domain/errors.ts";
import { epochLength } from "@src/domain/network_constants.ts";

/**
 * The reported tip's height when it may trail the database a statement lands on (replicas, or a tip shared
 * through Redis): what lists the newest blocks reads up to, so it never goes back between requests.
 */
const reportedCap = (network: Network) =>
  Effect.gen(function* () {
    const db = (yield* ChainDatabases).get(network);
    const tips = yield* ChainTips;
    return db.replicas || tips.shared ? tips.get(network).current()?.height ?? undefined : undefined;
  });

export const blocks = Effect.fnUntraced(function* (network: Network, page: number, limit: number) {
  const db = (yield* ChainDatabases).get(network);
  const atMostBlockNo = yield* reportedCap(network);
  return yield* atTip(
    network,
    `blocks:${page}:${limit}`,
    recentBlocks(db.sql, { page, limit, atMostBlockNo }).pipe(Effect.mapError(fromSql(network))),
  );
});

export const block = Effect.fnUntraced(function* (network: Network, id: number | string) {
  const db = (yield* ChainDatabases).get(network);
  const found = yield* atTip(
    network,
    `block:${id}`,
    blockById(db.sql, typeof id === "number" ? { number: id } : { hash: id }).pipe(
      Effect.mapError(fromSql(network)),
    ),
  );
  if (!found) return yield* new NotFoundError({ message: `Block ${id} not found on ${network}` });
  return found;
});

/** The pots of the latest boundary and `epoch`'s stake distribution, cached per epoch (they change once an epoch). */
export const epochFiguresOf = Effect.fnUntraced(function* (network: Network, epoch: number) {
  const db = (yield* ChainDatabases).get(network);
  const cache = yield* Cache;
  return yield* cache.getOrCompute(
    `stats:${network}:epoch:${epoch}`,
    "10 minutes",
    epochFigures(db.sql, epoch).pipe(Effect.mapError(fromSql(network))),
  );
});

/**
 * The tip as the service reports it: no higher than the reported tip (replicas, a tip shared through Redis),
 * so it never goes back between requests. Undefined on an empty chain.
 */
export const reportedTip = Effect.fnUntraced(function* (network: Network) {
  const db = (yield* ChainDatabases).get(network);
  const atMostBlockNo = yield* reportedCap(network);
  return yield* tipPosition(db.sql, { atMostBlockNo }).pipe(Effect.mapError(fromSql(network)));
});

export const stats = Effect.fnUntraced(function* (network: Network) {
  const db = (yield* ChainDatabases).get(network);
  const cache = yield* Cache;
  const tip = yield* reportedTip(network);
  if (!tip) return yield* new NotFoundError({ message: `The ${network} chain holds no block yet` });
  const [figures, transactions] = yield* Effect.all([
    epochFiguresOf(network, tip.epochNo),
    cache.getOrCompute(
      `stats:${network}:transactions`,
      "20 seconds",
      totalTransactions(db.sql).pipe(Effect.mapError(fromSql(network))),
    ),
  ]);
  return {
    blockHeight: tip.blockNo,
    slotNo: tip.slotNo,
    epochNo: tip.epochNo,
    epochProgress: Math.round((tip.epochSlotNo / epochLength) * 10_000) / 100,
    totalTransactions: transactions,
    ...figures,
  };
});

/** A block's transactions, a page at a time, in block order (`asc`) or its reverse (`desc`). */
export const blockTransactions = Effect.fnUntraced(
  function* (
    network: Network,
    id: number | string,
    page: number,
    limit: number,
    order: "asc" | "desc" = "asc",
  ) {
    const db = (yield* ChainDatabases).get(network);
    const found = yield* atTip(
      network,
      `block-txs:${id}:${page}:${limit}:${order}`,
      blockTransactionsQuery(db.sql, typeof id === "number" ? { number: id } : { hash: id }, {
        page,
        limit,
        order,
      }).pipe(Effect.mapError(fromSql(network))),
    );
    if (!found) return yield* new NotFoundError({ message: `Block ${id} not found on ${network}` });
    return found;
  },
);
