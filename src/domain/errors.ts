/**
 * The typed failures every program may end with. Each protocol edge (REST, GraphQL, JSON-RPC, /health) maps
 * them to its documented envelope; nothing here knows about HTTP.
 */
import type { SqlError } from "@effect/sql/SqlError";
import { Data, Effect } from "effect";
import type { Network } from "@schemas/network.ts";
import type { Decoded } from "./cardano_ids.ts";

/** A database could not be reached or a statement failed for infrastructure reasons. */
export class DatabaseUnavailable extends Data.TaggedError("DatabaseUnavailable")<{
  readonly network: Network | "service";
  readonly message: string;
}> {}

/** The chain database holds no block yet (db-sync still starting, or an empty database). */
export class ChainEmpty extends Data.TaggedError("ChainEmpty")<{
  readonly network: Network;
}> {
  override get message(): string {
    return `the ${this.network} chain database holds no block yet`;
  }
}

/** Database failures inside programs become the typed `DatabaseUnavailable` (503), never a 500. */
export const fromSql = (network: DatabaseUnavailable["network"]) => (e: SqlError) =>
  new DatabaseUnavailable({ network, message: e.message });

/** A parameter the client sent is malformed, naming the parameter and why. */
export class InvalidParameter extends Data.TaggedError("InvalidParameter")<{
  readonly parameter: string;
  readonly reason: string;
}> {}

/** The thing asked for does not exist on this network. */
export class NotFoundError extends Data.TaggedError("NotFoundError")<{ readonly message: string }> {}

/** The node client (an Ogmios upstream) failed or refused, with what it said. */
export class NodeUnavailable extends Data.TaggedError("NodeUnavailable")<{ readonly message: string }> {}

/** The price source could not be read and no recent price is cached. */
export class PriceUnavailable extends Data.TaggedError("PriceUnavailable")<{ readonly message: string }> {}

/** A decoded identifier, or the `InvalidParameter` that names the parameter and says what is wrong with it. */
export const decodedOr = <A>(parameter: string, decoded: Decoded<A>): Effect.Effect<A, InvalidParameter> =>
  decoded.ok
    ? Effect.succeed(decoded.value)
    : Effect.fail(new InvalidParameter({ parameter, reason: decoded.reason }));

/**
 * An error object as Ogmios (and JSON-RPC 2.0) writes it: what an Ogmios upstream or the devnet answers, and
 * what the JSON-RPC edge sends. Lovelace and quantities in `data` may be bigints (exact JSON numbers on the wire).
 */
export interface OgmiosError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** A query that would read far too much (e.g. the whole UTxO set), refused whatever answers it. */
export class QueryTooBroad extends Data.TaggedError("QueryTooBroad")<{ readonly message: string }> {}

/** The chain database lacks a row it should always hold (e.g. db-sync's `meta`), said plainly. */
export class ChainIncomplete extends Data.TaggedError("ChainIncomplete")<{ readonly message: string }> {}

/** The node (an Ogmios upstream or the devnet) refused the request: its own error, passed on unchanged. */
export class NodeRejected extends Data.TaggedError("NodeRejected")<{ readonly error: OgmiosError }> {
  override get message(): string {
    return this.error.message;
  }
}

/** No node is there to take transactions (no Ogmios upstream, no devnet running). */
export class NodeNotConfigured extends Data.TaggedError("NodeNotConfigured")<{
  readonly network: Network;
  readonly action: "evaluated" | "submitted";
  /** On the embedded demo chain the devnet could take them, were DEVNET_BLOCK_SECONDS above 0. */
  readonly devnetPossible: boolean;
}> {}
