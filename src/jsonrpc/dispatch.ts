/**
 * JSON-RPC dispatch: one frame in, one reply out, for either transport. Methods are looked up by their exact,
 * case-sensitive Ogmios name; each lives in `methods/`.
 */
import { Effect } from "effect";
import type { Network } from "@schemas/network.ts";
import { errors, isReply, parseFrame, type Reply, type Request } from "./frame.ts";
import type { MethodProgram, MethodServices } from "./method.ts";
import { protocolParametersMethod } from "./methods/protocol_parameters.ts";
import { utxo } from "./methods/utxo.ts";
import { stakePools } from "./methods/stake_pools.ts";
import { eraStart, summaries } from "./methods/eras.ts";
import { liveStakeDistribution } from "./methods/stake_distribution.ts";
import { rewardAccountSummaries } from "./methods/reward_accounts.ts";
import { blockHeight } from "./methods/block_height.ts";
import { epoch } from "./methods/epoch.ts";
import { startTime } from "./methods/start_time.ts";
import { tipPoint } from "./methods/tip.ts";

export const methods: Readonly<Record<string, MethodProgram>> = {
  "queryNetwork/tip": tipPoint,
  "queryLedgerState/tip": tipPoint,
  "queryNetwork/blockHeight": blockHeight,
  "queryNetwork/startTime": startTime,
  "queryLedgerState/epoch": epoch,
  "queryLedgerState/protocolParameters": protocolParametersMethod,
  "queryLedgerState/utxo": utxo,
  "queryLedgerState/stakePools": stakePools,
  "queryLedgerState/eraSummaries": summaries,
  "queryLedgerState/eraStart": eraStart,
  "queryLedgerState/liveStakeDistribution": liveStakeDistribution,
  "queryLedgerState/rewardAccountSummaries": rewardAccountSummaries,
};

/** Runs a parsed request; every failure becomes an error reply carrying the method and id. */
export const run = (network: Network, request: Request): Effect.Effect<Reply, never, MethodServices> => {
  const method = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
  if (!method) {
    return Effect.succeed({
      method: request.method,
      id: request.id,
      error: errors.methodNotFound(request.method),
    });
  }
  return method(network, request.params).pipe(
    Effect.map((result): Reply => ({ method: request.method, id: request.id, result })),
    Effect.catchAll((error) => Effect.succeed<Reply>({ method: request.method, id: request.id, error })),
  );
};

/** Parses then runs one frame. */
export const dispatch = (network: Network, text: string): Effect.Effect<Reply, never, MethodServices> => {
  const parsed = parseFrame(text);
  return isReply(parsed) ? Effect.succeed(parsed) : run(network, parsed);
};
