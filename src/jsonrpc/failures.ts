/**
 * What a JSON-RPC request may fail with, and how each failure reaches the wire as Ogmios' error object
 * (`{code, message, data?}`). Programs fail with the tagged errors of src/domain/errors.ts, the protocol with
 * those of `protocol_errors.ts`; only `toOgmiosError` knows codes, and every error reply is built here.
 */
import { Match } from "effect";
import type {
  ChainEmpty,
  ChainIncomplete,
  DatabaseUnavailable,
  InvalidParameter,
  NodeNotConfigured,
  NodeRejected,
  NodeUnavailable,
  NotFoundError,
  OgmiosError,
  PriceUnavailable,
  QueryTooBroad,
} from "@src/domain/errors.ts";
import type { Network } from "@schemas/network.ts";
import type { JsonRpcId, Reply } from "./frame.ts";
import type {
  AccessRefused,
  BodyTooLarge,
  InvalidParams,
  InvalidRequest,
  MethodNotFound,
  MethodNotServed,
  NoIntersection,
  ParseError,
  QueryNeedsUpstream,
  RateLimited,
} from "./protocol_errors.ts";

export type JsonRpcFailure =
  // the domain's
  | InvalidParameter
  | NotFoundError
  | DatabaseUnavailable
  | ChainEmpty
  | ChainIncomplete
  | PriceUnavailable
  | NodeUnavailable
  | NodeRejected
  | NodeNotConfigured
  | QueryTooBroad
  // the protocol's
  | ParseError
  | InvalidRequest
  | BodyTooLarge
  | MethodNotFound
  | MethodNotServed
  | QueryNeedsUpstream
  | InvalidParams
  | RateLimited
  | AccessRefused
  | NoIntersection;

const upstreamVariable = (network: Network) => `${network.toUpperCase()}_OGMIOS_URL`;

const invalidParams = (detail: string): OgmiosError => ({
  code: -32602,
  message: `Invalid params: ${detail}`,
});
const internal = (detail: string): OgmiosError => ({ code: -32603, message: `Internal error: ${detail}` });
const invalidRequest = (detail: string): OgmiosError => ({
  code: -32600,
  message: `Invalid request: ${detail}`,
});

export const toOgmiosError = (failure: JsonRpcFailure): OgmiosError =>
  Match.value(failure).pipe(
    Match.tagsExhaustive({
      InvalidParameter: (e) => invalidParams(`'${e.parameter}' ${e.reason}`),
      // Ogmios' "unavailable in the current era / nothing there yet"
      NotFoundError: (e) => ({ code: 2002, message: e.message }),
      ChainEmpty: (e) => ({ code: 2002, message: e.message }),
      DatabaseUnavailable: (e) => internal(`chain database: ${e.message}`),
      ChainIncomplete: (e) => internal(e.message),
      PriceUnavailable: (e) => internal(e.message),
      NodeUnavailable: (e) => internal(e.message),
      // the node's own error, passed on unchanged (the devnet's ledger rules keep Ogmios' 3xxx codes)
      NodeRejected: (e) => e.error,
      NodeNotConfigured: (e): OgmiosError => ({
        code: -32000,
        message: `No node is configured for ${e.network}: transactions cannot be ${e.action} here. ` +
          `Set ${upstreamVariable(e.network)} to relay them to an Ogmios` +
          (e.devnetPossible
            ? ", or set DEVNET_BLOCK_SECONDS above 0 (it is 0) to run the local devnet."
            : "."),
      }),
      QueryTooBroad: (e) => invalidParams(e.message),
      ParseError: (e) => ({ code: -32700, message: `Parse error: invalid JSON received (${e.detail})` }),
      InvalidRequest: (e) => invalidRequest(e.detail),
      BodyTooLarge: (e) => invalidRequest(e.detail),
      MethodNotFound: (e) => ({
        code: -32601,
        message: `Method not found: '${e.method}' (method names are case-sensitive, e.g. queryNetwork/tip)`,
      }),
      MethodNotServed: (e) => ({ code: -32601, message: `Method not available: ${e.method} ${e.reason}` }),
      QueryNeedsUpstream: (e) => ({
        code: -32601,
        message:
          `Method not available: ${e.method} cannot be answered from the chain database (db-sync does ` +
          `not keep what it needs). Set ${upstreamVariable(e.network)} to relay it to an Ogmios.`,
      }),
      InvalidParams: (e) => invalidParams(e.detail),
      RateLimited: (e) => ({
        code: -32029,
        message: e.reason ?? "Rate limit exceeded. Please slow down.",
        data: { retryAfter: e.retryAfterMs, remaining: e.remaining },
      }),
      AccessRefused: (e) => ({ code: -32000 - e.status, message: e.message }),
      NoIntersection: (e) => ({ code: 1000, message: "No intersection found.", data: { tip: e.tip } }),
    }),
  );

/** The error reply to a request (`method` undefined when the frame named none readable). */
export const errorReply = (method: string | undefined, id: JsonRpcId, failure: JsonRpcFailure): Reply => ({
  method,
  id,
  error: toOgmiosError(failure),
});
