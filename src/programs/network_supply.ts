/**
 * The network's supply and stake (Blockfrost's `/network`): the pots of the latest epoch boundary (the explorer's
 * per-epoch figures), the stake active in the tip's epoch and in the newest snapshot, and the lovelace locked at
 * script addresses (one pass over the outputs, so cached for ten minutes).
 */
import { Effect } from "effect";
import { Cache } from "@layers/cache.ts";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { fromSql, NotFoundError } from "@src/domain/errors.ts";
import { maxSupply } from "@src/domain/network_constants.ts";
import { liveStakeEpoch, scriptLockedSupply } from "@src/queries/network_stats.ts";
import { epochFiguresOf, reportedTip } from "./explorer.ts";

export interface NetworkSupply {
  readonly max: string;
  /** max - reserves: every lovelace out of the reserves. */
  readonly total: string;
  /** UTxO plus reward balances at the latest boundary. */
  readonly circulating: string;
  readonly locked: string;
  readonly treasury: string;
  readonly reserves: string;
  readonly liveStake: string;
  readonly activeStake: string;
}

export const networkSupply = Effect.fnUntraced(function* (network: Network) {
  const db = (yield* ChainDatabases).get(network);
  const cache = yield* Cache;
  const tip = yield* reportedTip(network);
  if (!tip) return yield* new NotFoundError({ message: `The ${network} chain holds no block yet` });
  const liveEpoch = yield* liveStakeEpoch(db.sql, tip.epochNo).pipe(Effect.mapError(fromSql(network)));
  const [active, live, locked] = yield* Effect.all([
    epochFiguresOf(network, tip.epochNo),
    epochFiguresOf(network, liveEpoch),
    cache.getOrCompute(
      `script-locked:${network}`,
      "10 minutes",
      scriptLockedSupply(db.sql, db.dbSync.spentTracking).pipe(Effect.mapError(fromSql(network))),
    ),
  ]);
  return {
    max: maxSupply.toString(),
    total: (maxSupply - BigInt(active.reserves)).toString(),
    circulating: active.circulatingSupply,
    locked,
    treasury: active.treasury,
    reserves: active.reserves,
    liveStake: live.activeStake,
    activeStake: active.activeStake,
  } satisfies NetworkSupply;
});
