/**
 * The typed failures every program may end with. Each protocol edge (REST, GraphQL, JSON-RPC, /health) maps
 * them to its documented envelope; nothing here knows about HTTP.
 */
import { Data } from "effect";
import type { Network } from "@schemas/network.ts";

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
