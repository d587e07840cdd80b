/**
 * The current epoch (Blockfrost's `/epochs/latest`): the tip's epoch, its bounds by the chain clock, db-sync's
 * figures for it (src/queries/epoch_summary.ts) and the stake active in it (the explorer's per-epoch figures),
 * cached at the tip.
 */
import { Effect } from "effect";
import { ChainClock } from "@layers/chain_clock.ts";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { fromSql, NotFoundError } from "@src/domain/errors.ts";
import { epochLength, slotLengthMs } from "@src/domain/network_constants.ts";
import { epochSummary } from "@src/queries/epoch_summary.ts";
import { atTip } from "./at_tip.ts";
import { epochFiguresOf, reportedTip } from "./explorer.ts";

export const latestEpoch = Effect.fnUntraced(function* (network: Network) {
  const db = (yield* ChainDatabases).get(network);
  const clock = (yield* ChainClock).get(network);
  const tip = yield* reportedTip(network);
  if (!tip) return yield* new NotFoundError({ message: `The ${network} chain holds no epoch yet` });
  const summary = yield* atTip(
    network,
    `epoch-summary:${tip.epochNo}`,
    epochSummary(db.sql, tip.epochNo).pipe(Effect.mapError(fromSql(network))),
  );
  if (!summary) {
    return yield* new NotFoundError({
      message:
        `The ${network} chain database keeps no figures for epoch ${tip.epochNo} (db-sync's epoch table)`,
    });
  }
  const figures = yield* epochFiguresOf(network, tip.epochNo);
  const start = clock.slotToTime(clock.epochStartSlot(tip.epochNo));
  return {
    ...summary,
    firstBlockTime: new Date(summary.firstBlockTime),
    lastBlockTime: new Date(summary.lastBlockTime),
    startTime: start,
    endTime: new Date(start.getTime() + epochLength * slotLengthMs),
    /** None when the epoch's stake distribution is not written (yet). */
    activeStake: figures.activePools > 0 ? figures.activeStake : null,
  };
});
