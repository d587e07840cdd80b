/**
 * Readiness, for orchestrators deciding where to send traffic: ready once start-up is done and while every
 * database answers (the monitor probes them each second), else the reason. Redis and Ogmios upstreams do not
 * count: without them the service still answers (limits per instance, JSON-RPC errors), so it stays in rotation.
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import { Dependencies, notReadyReason } from "@layers/dependencies.ts";
import { type ChainMembers, chainMembers } from "./chain_members.ts";

export type Readiness =
  | { readonly ready: true; readonly members?: ChainMembers }
  | { readonly ready: false; readonly reason: string };

/**
 * A database given as several URLs (replicas) is ready while one of them is in use (chain_replicas.ts posts that
 * on the board); the answer then lists each member's state.
 */
export const readiness: Effect.Effect<Readiness, never, Dependencies | ChainDatabases> = Effect.map(
  Effect.all([Dependencies, ChainDatabases]),
  ([board, dbs]) => {
    const reason = notReadyReason(board);
    if (reason !== undefined) return { ready: false, reason };
    const members = chainMembers(dbs);
    return members === undefined ? { ready: true } : { ready: true, members };
  },
);
