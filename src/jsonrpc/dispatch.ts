/**
 * JSON-RPC dispatch: one request in, one reply out, for either transport. A ledger query goes to the network's
 * Ogmios upstream when one is configured, else to the local program answering it from the chain database (the
 * devnet's too); evaluation and submission go to the network's NodeClient; chain sync to the connection's
 * session. Methods are looked up by their exact, case-sensitive Ogmios name.
 */
import { Context, Effect } from "effect";
import { NodeClients } from "@layers/node_client.ts";
import { type LedgerTip, ledgerTipOf } from "@src/programs/ledger/tip.ts";
import type { Network } from "@schemas/network.ts";
import { QueryTooBroad } from "@src/domain/errors.ts";
import { type ChainSyncSession, makeChainSync } from "./chain_sync.ts";
import { errorReply, type JsonRpcFailure } from "./failures.ts";
import { isRefused, parseFrame, type Reply, type Request } from "./frame.ts";
import { ogmiosQueries, unservedOgmiosMethods } from "./ledger_queries.ts";
import type { MethodProgram, MethodServices } from "./method.ts";
import type { Params } from "./params.ts";
import { MethodNotFound, MethodNotServed, QueryNeedsUpstream } from "./protocol_errors.ts";
import { blockHeight, blockHeightOf } from "./methods/block_height.ts";
import { epoch } from "./methods/epoch.ts";
import { eraStart, summaries } from "./methods/eras.ts";
import { protocolParametersMethod } from "./methods/protocol_parameters.ts";
import { rewardAccountSummaries } from "./methods/reward_accounts.ts";
import { liveStakeDistribution } from "./methods/stake_distribution.ts";
import { stakePools } from "./methods/stake_pools.ts";
import { startTime } from "./methods/start_time.ts";
import { tipPoint, tipPointOf } from "./methods/tip.ts";
import { evaluateTransaction, submitTransaction } from "./methods/transactions.ts";
import { utxo } from "./methods/utxo.ts";

/** The queries the chain database answers without an upstream, each by a program of src/programs/ledger/. */
const localQueries: ReadonlyMap<string, MethodProgram> = new Map([
  ["queryNetwork/tip", tipPoint],
  ["queryLedgerState/tip", tipPoint],
  ["queryNetwork/blockHeight", blockHeight],
  ["queryNetwork/startTime", startTime],
  ["queryLedgerState/epoch", epoch],
  ["queryLedgerState/protocolParameters", protocolParametersMethod],
  ["queryLedgerState/utxo", utxo],
  ["queryLedgerState/stakePools", stakePools],
  ["queryLedgerState/eraSummaries", summaries],
  ["queryLedgerState/eraStart", eraStart],
  ["queryLedgerState/liveStakeDistribution", liveStakeDistribution],
  ["queryLedgerState/rewardAccountSummaries", rewardAccountSummaries],
]);

/**
 * The local queries answered from the tip ChainTips polled, which is in memory: clients send them as a heartbeat,
 * many a second, so `answerNow` gives them without a fiber (the same answers as their programs above).
 */
const tipQueries: ReadonlyMap<string, (tip: LedgerTip) => unknown> = new Map<
  string,
  (tip: LedgerTip) => unknown
>([
  ["queryNetwork/tip", tipPointOf],
  ["queryLedgerState/tip", tipPointOf],
  ["queryNetwork/blockHeight", blockHeightOf],
]);

/** A UTxO query without a filter would mean the whole UTxO set: refused whoever would answer it. */
const tooBroad = (method: string, params: Params): QueryTooBroad | undefined =>
  method === "queryLedgerState/utxo" && params?.addresses === undefined &&
    params?.outputReferences === undefined
    ? new QueryTooBroad({
      message: "give 'addresses' or 'outputReferences': querying the whole UTxO set is not supported",
    })
    : undefined;

/**
 * Ogmios' mini-protocols: replies keep request order within one, while one may wait (a `nextBlock` at the tip)
 * without holding up the others.
 */
export type Lane = "query" | "chainSync" | "submission" | "evaluation";

export const laneOf = (method: string | undefined): Lane =>
  method === "findIntersection" || method === "nextBlock"
    ? "chainSync"
    : method === "submitTransaction"
    ? "submission"
    : method === "evaluateTransaction"
    ? "evaluation"
    : "query";

const program = (
  network: Network,
  request: Request,
  session: ChainSyncSession,
  inFlight: number,
): Effect.Effect<unknown, JsonRpcFailure, MethodServices> => {
  const { method, params } = request;
  switch (method) {
    case "findIntersection":
      return session.findIntersection(params);
    case "nextBlock":
      return session.nextBlock(inFlight);
    case "submitTransaction":
      return submitTransaction(network, params);
    case "evaluateTransaction":
      return evaluateTransaction(network, params);
  }
  const unserved = unservedOgmiosMethods.get(method);
  if (unserved) return Effect.fail(new MethodNotServed({ method, reason: unserved }));
  if (!ogmiosQueries.has(method)) return Effect.fail(new MethodNotFound({ method }));
  const refused = tooBroad(method, params);
  if (refused) return Effect.fail(refused);
  return Effect.flatMap(NodeClients, (nodes) => {
    const relay = nodes.get(network).relay;
    if (relay) return relay(method, params);
    const local = localQueries.get(method);
    return local ? local(network, params) : Effect.fail(new QueryNeedsUpstream({ method, network }));
  });
};

/**
 * Runs a parsed request; every failure becomes an error reply carrying the method and id. `inFlight`: how many
 * chain-sync requests the connection has waiting (sizes chain sync's read-ahead).
 */
export const run = (
  network: Network,
  request: Request,
  session: ChainSyncSession,
  inFlight = 1,
): Effect.Effect<Reply, never, MethodServices> =>
  program(network, request, session, inFlight).pipe(
    Effect.map((result): Reply => ({ method: request.method, id: request.id, result })),
    Effect.catchAll((failure) => Effect.succeed(errorReply(request.method, request.id, failure))),
  );

/**
 * The reply without I/O when there is one (a tip query with no upstream to relay it to, a block the chain-sync
 * session has already read); undefined means "run it" (`run` above).
 */
export const answerNow = (
  network: Network,
  request: Request,
  session: ChainSyncSession,
  services: Context.Context<MethodServices>,
): Reply | undefined => {
  if (request.method === "nextBlock") {
    const result = session.nextBlockNow(services);
    return result === undefined ? undefined : { method: request.method, id: request.id, result };
  }
  const answer = tipQueries.get(request.method);
  if (answer === undefined || Context.get(services, NodeClients).get(network).relay) return undefined;
  return { method: request.method, id: request.id, result: answer(ledgerTipOf(services, network)) };
};

/** Parses then runs one frame on its own (HTTP: a fresh chain-sync session, at the origin, per request). */
export const dispatch = (network: Network, text: string): Effect.Effect<Reply, never, MethodServices> => {
  const parsed = parseFrame(text);
  return isRefused(parsed)
    ? Effect.succeed(errorReply(parsed.method, parsed.id, parsed.failure))
    : run(network, parsed, makeChainSync(network));
};
