/**
 * The Blockfrost dialect's utils routes (schemas/blockfrost/utils.ts): script evaluation with the transaction as
 * the body (`/utils/txs/evaluate`) or in JSON with extra UTxOs (`/utils/txs/evaluate/utxos`). The body is read
 * under MAX_BODY_BYTES (413 past it), read into the evaluation program's input (evaluation_request.ts), and the
 * node's answer written in the Ogmios version asked for (evaluation_answer.ts).
 */
import { Effect, Either } from "effect";
import { evaluate, EvaluateQuery, evaluateUtxos } from "@schemas/blockfrost/utils.ts";
import type { Network } from "@schemas/network.ts";
import type { InvalidParameter } from "@src/domain/errors.ts";
import { decodeAt } from "@src/http/decode_parameters.ts";
import { readBodyBytes, tooLargeMessage } from "@src/http/request_body.ts";
import type { Route } from "@src/http/route.ts";
import { evaluateTransaction, type TransactionToEvaluate } from "@src/programs/evaluate_transaction.ts";
import { blockfrostPaths, blockfrostRoute } from "../endpoint.ts";
import { evaluationAnswer, evaluationRefusal } from "../evaluation_answer.ts";
import { transactionFromBody, transactionFromJson } from "../evaluation_request.ts";
import { blockfrostError, toBlockfrostResponse } from "../failures.ts";

type Reader = (body: Uint8Array) => Either.Either<TransactionToEvaluate, InvalidParameter>;

const evaluationRoutes = (path: string, read: Reader): ReadonlyArray<Route> =>
  (["mainnet", "preprod"] as const).flatMap((network: Network) =>
    blockfrostPaths(network, path).map((routePath): Route => ({
      method: "POST",
      path: routePath,
      ...blockfrostRoute(network, "request"),
      prepare: (request) => {
        const query = decodeAt(EvaluateQuery, request.query, "query");
        if (Either.isLeft(query)) return Either.left(toBlockfrostResponse(query.left));
        const version = query.right.version === "6" ? "6" : "5";
        return Either.right({
          network,
          run: (ctx) =>
            Effect.gen(function* () {
              const body = yield* Effect.promise(() => readBodyBytes(ctx.request, ctx.config.maxBodyBytes));
              if (body._tag === "TooLarge") return blockfrostError(413, tooLargeMessage(body.limit));
              if (body._tag === "Broken") return blockfrostError(400, "The request body ended early");
              const tx = read(body.bytes);
              if (Either.isLeft(tx)) return toBlockfrostResponse(tx.left);
              return yield* evaluateTransaction(network, tx.right).pipe(
                Effect.map((result) => evaluationAnswer(version, result)),
                Effect.catchTags({
                  NodeRejected: (e) => Effect.succeed(evaluationRefusal(version, e.error)),
                  NodeUnavailable: (e) => Effect.succeed(toBlockfrostResponse(e)),
                  NodeNotConfigured: (e) => Effect.succeed(toBlockfrostResponse(e)),
                }),
              );
            }),
        });
      },
    }))
  );

export const utilsRoutes: ReadonlyArray<Route> = [
  ...evaluationRoutes(evaluate.path, transactionFromBody),
  ...evaluationRoutes(evaluateUtxos.path, (bytes) => transactionFromJson(new TextDecoder().decode(bytes))),
];
