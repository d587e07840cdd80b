/**
 * Failures of the HTTP front door itself, before or around a route's program: no such route, a method the path
 * does not take, an unexpected defect, the caller's address throttled, the key store down, the service not ready.
 * They reach the wire through the same mapper as the programs' failures (failures.ts); access refusals are
 * `AccessDenied` from layers/access.ts, and the address throttle and the key store's outage are defined with them
 * in src/http/refusal.ts (other protocols answer those in their own dialect).
 */
import { Data } from "effect";
import type { Network } from "@schemas/network.ts";
import { AuthThrottled, KeyStoreUnavailable } from "@src/http/refusal.ts";

// the front door's refusals are shared by every protocol's dialect (src/http/refusal.ts)
export { AuthThrottled, KeyStoreUnavailable };

/** No route has this path. */
export class RouteNotFound extends Data.TaggedError("RouteNotFound")<{
  readonly method: string;
  readonly path: string;
}> {}

/** The path exists, not with this method; `allow` lists the methods it takes. */
export class MethodNotAllowed extends Data.TaggedError("MethodNotAllowed")<{
  readonly method: string;
  readonly path: string;
  readonly allow: ReadonlyArray<string>;
}> {}

/** A query parameter given more than once (src/http/query_params.ts): which one, and how often. */
export class RepeatedParameter extends Data.TaggedError("RepeatedParameter")<{
  readonly parameter: string;
  readonly count: number;
}> {}

/** A defect while serving: the answer names the request id its log line carries. */
export class InternalFailure extends Data.TaggedError("InternalFailure")<{ readonly requestId: string }> {}

/** `/ready` while a dependency is not ready (or the service starts or stops). */
export class NotReady extends Data.TaggedError("NotReady")<{
  readonly reason: string;
  readonly stopping: boolean;
}> {}

/** Any other route while the service starts or drains. */
export class ServiceStarting extends Data.TaggedError("ServiceStarting")<{
  readonly reason: string;
  readonly stopping: boolean;
}> {}

/** `/metrics` on the main port without the right bearer token. */
export class MetricsTokenRefused extends Data.TaggedError("MetricsTokenRefused") {}

/** A plain GET on a WebSocket endpoint (the Ogmios path). */
export class UpgradeExpected extends Data.TaggedError("UpgradeExpected")<{ readonly path: string }> {}

/** A network's chain database failed while answering an Ogmios health probe, with what it said. */
export class ChainDatabaseUnreachable extends Data.TaggedError("ChainDatabaseUnreachable")<{
  readonly network: Network;
  readonly message: string;
}> {}

export type EdgeFailure =
  | RouteNotFound
  | MethodNotAllowed
  | RepeatedParameter
  | InternalFailure
  | AuthThrottled
  | KeyStoreUnavailable
  | NotReady
  | ServiceStarting
  | MetricsTokenRefused
  | UpgradeExpected
  | ChainDatabaseUnreachable;
