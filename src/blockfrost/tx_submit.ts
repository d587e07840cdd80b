/**
 * `POST /tx/submit` (schemas/blockfrost/transactions.ts): the body is the serialised transaction, sent as
 * `Content-Type: application/cbor`. Lucid Evolution, Blaze, blockfrost-js and Mesh send its bytes; Mesh with
 * `setSubmitTxToBytes(false)` sends its hex text under the same type, so both are taken (a transaction's CBOR
 * starts with an array head, 0x84, never a hex digit, so the two cannot be confused). The body is read under
 * MAX_BODY_BYTES (413 past it); it spends the key's submission budget too. The answer is the transaction's id
 * as a JSON string; the node's refusal is a 400 with its reason (failures.ts).
 */
import { hex } from "@scure/base";
import { Effect } from "effect";
import { txSubmit } from "@schemas/blockfrost/transactions.ts";
import type { Network } from "@schemas/network.ts";
import { json } from "@src/http/json.ts";
import { readBodyBytes, tooLargeMessage } from "@src/http/request_body.ts";
import type { Route } from "@src/http/route.ts";
import { submitTransaction } from "@src/programs/submit_transaction.ts";
import { blockfrostPaths, blockfrostRoute } from "./endpoint.ts";
import { blockfrostError, toBlockfrostResponse } from "./failures.ts";

const hexText = /^(?:[0-9a-fA-F]{2})+$/;

/** The transaction's bytes: the body itself, or the bytes its hex text spells (whitespace around it ignored). */
const transactionBytes = (body: Uint8Array): Uint8Array => {
  if (body.length === 0 || body[0]! >= 0x80) return body;
  const text = new TextDecoder().decode(body).trim();
  return hexText.test(text) ? hex.decode(text.toLowerCase()) : body;
};

const isCbor = (contentType: string | null) =>
  contentType !== null && contentType.split(";")[0]!.trim().toLowerCase() === "application/cbor";

const submitRoute = (network: Network, path: string): Route => ({
  method: "POST",
  path,
  ...blockfrostRoute(network, "submission"),
  run: (ctx) =>
    Effect.gen(function* () {
      if (!isCbor(ctx.request.headers.get("content-type"))) {
        return blockfrostError(
          415,
          "The transaction must be sent as Content-Type: application/cbor (its CBOR bytes, or their hex text)",
        );
      }
      const body = yield* Effect.promise(() => readBodyBytes(ctx.request, ctx.config.maxBodyBytes));
      if (body._tag === "TooLarge") return blockfrostError(413, tooLargeMessage(body.limit));
      if (body._tag === "Broken") {
        return blockfrostError(400, "The request body ended before it was complete");
      }
      if (body.bytes.length === 0) {
        return blockfrostError(400, "The body is empty: send the transaction's CBOR");
      }
      return yield* submitTransaction(network, transactionBytes(body.bytes)).pipe(
        Effect.map((id) => json(id, 200, { "cache-control": "no-store" })),
        Effect.catchAll((failure) => Effect.succeed(toBlockfrostResponse(failure))),
      );
    }),
});

export const txSubmitRoutes: ReadonlyArray<Route> = (["mainnet", "preprod"] as const).flatMap((network) =>
  blockfrostPaths(network, txSubmit.path).map((path) => submitRoute(network, path))
);
