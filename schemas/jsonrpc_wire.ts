/**
 * JSON-RPC 2.0 as `/v1/ogmios` speaks it (Ogmios v6: https://ogmios.dev/api/): one request per HTTP body or
 * WebSocket message. Methods, their params and results are Ogmios' (its ogmios.json and cardano.json schemas);
 * here the envelope only.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema";
import { Schema } from "effect";

const Id = Schema.optional(Schema.Unknown).annotations({
  description: "echoed in the reply (Ogmios: any JSON)",
});

export const JsonRpcRequest = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  method: Schema.String.annotations({
    description: "an Ogmios v6 method: queryLedgerState/*, queryNetwork/*, nextBlock, findIntersection, " +
      "evaluateTransaction, submitTransaction, acquireMempool, ...",
  }),
  params: Schema.optional(Schema.Unknown),
  id: Id,
}).annotations({ identifier: "JsonRpcRequest" });

export const JsonRpcResult = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  method: Schema.String,
  result: Schema.Unknown,
  id: Id,
}).annotations({ identifier: "JsonRpcResult" });

export const JsonRpcFault = Schema.Struct({
  code: Schema.Int.annotations({
    description: "JSON-RPC (-32xxx) or Ogmios (e.g. 3xxx submission) code; -32029 when a rate is spent",
  }),
  message: Schema.String,
  data: Schema.optional(Schema.Unknown),
});

/** An error reply: HTTP 400 for a refused request, 413 for a body too large, 429 for a spent submission budget. */
const errorReply = (status: 400 | 413 | 429, description: string, name: string) =>
  Schema.Struct({
    jsonrpc: Schema.Literal("2.0"),
    method: Schema.optional(Schema.String),
    error: JsonRpcFault,
    id: Id,
  }).annotations({ ...HttpApiSchema.annotations({ status, description }), identifier: name });

export const JsonRpcError = errorReply(400, "A JSON-RPC error reply", "JsonRpcError");
export const JsonRpcBodyTooLarge = errorReply(
  413,
  "The body is larger than the service accepts (MAX_BODY_BYTES): a -32600 reply with id null",
  "JsonRpcBodyTooLarge",
);
export const JsonRpcRateLimited = errorReply(
  429,
  "The key's hourly submission budget is spent (a -32029 error reply); other 429s carry the access envelope",
  "JsonRpcRateLimited",
);
