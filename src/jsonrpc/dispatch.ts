/**
 * JSON-RPC dispatch: one request in, one reply out, for either transport. Ledger queries, evaluation and
 * submission go to the network's NodeClient; chain sync to the connection's session. Methods are looked up by
 * their exact, case-sensitive Ogmios name.
 */
import { Effect } from "effect";
import { NodeClients, type TransactionParams } from "@layers/node_client.ts";
import type { Network } from "@schemas/network.ts";
import { type ChainSyncSession, makeChainSync } from "./chain_sync.ts";
import { errors, isReply, parseFrame, type Reply, type Request, type RpcError } from "./frame.ts";
import { ogmiosQueries, unboundedUtxoQuery, unservedOgmiosMethods } from "./ledger_queries.ts";
import type { MethodServices } from "./method.ts";

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

const hexPattern = /^(?:[0-9a-fA-F]{2})+$/;

/** `{transaction: {cbor}}` (and, to evaluate, an optional `additionalUtxo` array). */
const transactionParams = (
  params: Readonly<Record<string, unknown>> | undefined,
  evaluation: boolean,
): TransactionParams | RpcError => {
  const cbor = (params?.transaction as { cbor?: unknown } | undefined)?.cbor;
  if (typeof cbor !== "string" || !hexPattern.test(cbor)) {
    return errors.invalidParams("'transaction.cbor' must be the serialised transaction in hex (base16)");
  }
  const additionalUtxo = params?.additionalUtxo;
  if (additionalUtxo !== undefined && (!evaluation || !Array.isArray(additionalUtxo))) {
    return errors.invalidParams(
      evaluation ? "'additionalUtxo' must be an array of UTxO" : "'additionalUtxo' is for evaluation only",
    );
  }
  return { cbor: cbor.toLowerCase(), ...(additionalUtxo ? { additionalUtxo } : {}) };
};

const program = (
  network: Network,
  request: Request,
  session: ChainSyncSession,
  inFlight: number,
): Effect.Effect<unknown, RpcError, MethodServices> => {
  const { method, params } = request;
  switch (method) {
    case "findIntersection":
      return session.findIntersection(params);
    case "nextBlock":
      return session.nextBlock(inFlight);
    case "submitTransaction":
    case "evaluateTransaction": {
      const tx = transactionParams(params, method === "evaluateTransaction");
      if ("code" in tx) return Effect.fail(tx);
      return Effect.flatMap(NodeClients, (nodes) => {
        const node = nodes.get(network);
        return method === "submitTransaction" ? node.submitTransaction(tx) : node.evaluateTransaction(tx);
      });
    }
  }
  const unserved = unservedOgmiosMethods.get(method);
  if (unserved) return Effect.fail({ code: -32601, message: `Method not available: ${method} ${unserved}` });
  if (!ogmiosQueries.has(method)) return Effect.fail(errors.methodNotFound(method));
  if (unboundedUtxoQuery(method, params)) {
    return Effect.fail(errors.invalidParams(
      "give 'addresses' or 'outputReferences': querying the whole UTxO set is not supported",
    ));
  }
  return Effect.flatMap(NodeClients, (nodes) => nodes.get(network).query(method, params));
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
    Effect.catchAll((error) => Effect.succeed<Reply>({ method: request.method, id: request.id, error })),
  );

/** Parses then runs one frame on its own (HTTP: a fresh chain-sync session, at the origin, per request). */
export const dispatch = (network: Network, text: string): Effect.Effect<Reply, never, MethodServices> => {
  const parsed = parseFrame(text);
  return isReply(parsed) ? Effect.succeed(parsed) : run(network, parsed, makeChainSync(network));
};
