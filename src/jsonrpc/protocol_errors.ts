/**
 * The failures of the JSON-RPC protocol itself (a frame, a method name, params, a key's limits), as tagged
 * errors. Only `failures.ts` turns them, and the domain's errors, into Ogmios' error objects.
 */
import { Data } from "effect";
import type { Network } from "@schemas/network.ts";

/** The frame is not JSON. */
export class ParseError extends Data.TaggedError("ParseError")<{ readonly detail: string }> {}

/** The frame is JSON but not a JSON-RPC request this service takes. */
export class InvalidRequest extends Data.TaggedError("InvalidRequest")<{ readonly detail: string }> {}

/** The HTTP body is over the size limit (the message says the limit). */
export class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{ readonly detail: string }> {}

/** No Ogmios method has this name (names are case-sensitive). */
export class MethodNotFound extends Data.TaggedError("MethodNotFound")<{ readonly method: string }> {}

/** An Ogmios method this service never serves, and why. */
export class MethodNotServed extends Data.TaggedError("MethodNotServed")<{
  readonly method: string;
  readonly reason: string;
}> {}

/** An Ogmios query the chain database cannot answer (only an upstream could). */
export class QueryNeedsUpstream extends Data.TaggedError("QueryNeedsUpstream")<{
  readonly method: string;
  readonly network: Network;
}> {}

/** The params are malformed; `detail` names the param and says what is wrong. */
export class InvalidParams extends Data.TaggedError("InvalidParams")<{ readonly detail: string }> {}

/** The key is over its request rate or its submission budget. */
export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly retryAfterMs: number;
  readonly remaining: number;
  /** Replaces the default message (a spent submission budget says so). */
  readonly reason?: string;
}> {}

/** The key is refused (unknown, revoked, expired...), with the HTTP status REST would answer. */
export class AccessRefused extends Data.TaggedError("AccessRefused")<{
  readonly status: number;
  readonly message: string;
}> {}

/** Chain sync: none of the points given is on the chain; `tip` as Ogmios reports it. */
export class NoIntersection extends Data.TaggedError("NoIntersection")<{ readonly tip: unknown }> {}
