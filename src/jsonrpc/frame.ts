/**
 * JSON-RPC 2.0 frames as Ogmios v6 speaks them (shared/notes/ogmios.md §1-2): every reply carries `jsonrpc`,
 * `method` and the request's `id` verbatim (any JSON value, null included); malformed frames get the standard
 * codes with a message saying what is wrong. Integers beyond 2^53 are written as exact digits.
 * A request without `id` is malformed (the interface spec: without `jsonrpc`, `method` or `id`), -32600, except
 * where a transport accepts one for a method the official client sends without it (`idOptionalOnWebSocket`).
 * An `id` or `method` too long to be a real one is refused (-32600) and not echoed, so a frame cannot make the
 * service write its own bulk back.
 */
import type { OgmiosError } from "@src/domain/errors.ts";
import { JsonText, parseExact, stringify } from "@src/domain/json.ts";
import { InvalidParams, InvalidRequest, ParseError } from "./protocol_errors.ts";

export type JsonRpcId = unknown;

export interface Request {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>> | undefined;
  readonly id: JsonRpcId;
}

export type Reply =
  | { readonly method: string | undefined; readonly id: JsonRpcId; readonly result: unknown }
  | { readonly method: string | undefined; readonly id: JsonRpcId; readonly error: OgmiosError };

/** A frame refused before it ran: why, with its method and id as far as they could be read. */
export interface Refused {
  readonly method: string | undefined;
  readonly id: JsonRpcId;
  readonly failure: ParseError | InvalidRequest | InvalidParams;
}

/** Far above the npm client's `{"requestId":"<16 characters>"}` or any counter or UUID. */
export const maxIdLength = 1024;
/** Ogmios' longest method name is under 40 characters. */
export const maxMethodLength = 128;

/**
 * Methods that @cardano-ogmios/client 6.x sends without an `id` (ChainSynchronization/nextBlock.js pipelines
 * `nextBlock` with `id: undefined`; TransactionSubmission/Client.js sends `evaluateTransaction` and
 * `submitTransaction` with none) and matches by method or order instead. It speaks only WebSocket, so
 * there, and only for these, a missing `id` is accepted and answered with `id: null`, as Ogmios does.
 */
export const idOptionalOnWebSocket: ReadonlySet<string> = new Set([
  "nextBlock",
  "evaluateTransaction",
  "submitTransaction",
]);

const noExceptions: ReadonlySet<string> = new Set();

const invalidRequest = (detail: string) => new InvalidRequest({ detail });
const invalidParams = (detail: string) => new InvalidParams({ detail });

const idTooLong = (id: unknown): boolean => {
  if (typeof id === "number" || typeof id === "boolean" || id === null) return false;
  // a string's JSON is its length plus quotes, up to 6 characters each when escaped
  if (typeof id === "string" && id.length * 6 + 2 <= maxIdLength) return false;
  try {
    return (stringify(id)?.length ?? 0) > maxIdLength;
  } catch {
    return true; // nested too deep to write back
  }
};

/**
 * Parses one frame: a request, or why it is refused (with the id when it could be read). `idOptional`: the
 * methods for which this transport accepts a request without `id` (none over HTTP).
 */
export const parseFrame = (
  text: string,
  idOptional: ReadonlySet<string> = noExceptions,
): Request | Refused => {
  let value: unknown;
  try {
    value = parseExact(text);
  } catch (e) {
    return {
      method: undefined,
      id: null,
      failure: new ParseError({ detail: e instanceof Error ? e.message : "unreadable" }),
    };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return {
      method: undefined,
      id: null,
      failure: invalidRequest(
        Array.isArray(value)
          ? "batches are not supported; send one JSON object per frame"
          : "must be a JSON object",
      ),
    };
  }
  const frame = value as Record<string, unknown>;
  if ("id" in frame && idTooLong(frame.id)) {
    return {
      method: undefined,
      id: null,
      failure: invalidRequest(`'id' must be at most ${maxIdLength} characters of JSON`),
    };
  }
  const id = "id" in frame ? frame.id : null;
  if (typeof frame.method === "string" && frame.method.length > maxMethodLength) {
    return {
      method: undefined,
      id,
      failure: invalidRequest(`'method' must be at most ${maxMethodLength} characters`),
    };
  }
  const method = typeof frame.method === "string" ? frame.method : undefined;
  if (frame.jsonrpc !== "2.0") {
    return { method, id, failure: invalidRequest(`'jsonrpc' must be "2.0"`) };
  }
  if (method === undefined) {
    return { method: undefined, id, failure: invalidRequest("'method' must be a string") };
  }
  if (!("id" in frame) && !idOptional.has(method)) {
    return {
      method,
      id: null,
      failure: invalidRequest("'id' is required: any JSON value, echoed in the reply (e.g. \"id\": 1)"),
    };
  }
  const params = frame.params;
  if (params !== undefined && (params === null || typeof params !== "object" || Array.isArray(params))) {
    return { method, id, failure: invalidParams("'params' must be an object when present") };
  }
  return { method, params: params as Record<string, unknown> | undefined, id };
};

export const isRefused = (r: Request | Refused): r is Refused => "failure" in r;

/**
 * A reply's JSON. A result already written (JsonText: a chain-sync block) is spliced in, in the same key order.
 * Most hold no bigint (tips, blocks, whose integers come as raw JSON text), so JSON.stringify
 * as it is; one that does (UTxO values, protocol parameters) is written exact on the second try.
 */
export const encodeReply = (reply: Reply): string =>
  "result" in reply && reply.result instanceof JsonText
    ? `{"jsonrpc":"2.0"${
      reply.method === undefined ? "" : `,"method":${stringify(reply.method)}`
    },"result":${reply.result.text}${reply.id === undefined ? "" : `,"id":${stringify(reply.id)}`}}`
    : stringify({
      jsonrpc: "2.0",
      ...(reply.method === undefined ? {} : { method: reply.method }),
      ...("error" in reply ? { error: reply.error } : { result: reply.result }),
      id: reply.id,
    });
