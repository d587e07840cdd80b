/**
 * Readiness, for orchestrators deciding where to send traffic: ready once start-up is done and while every
 * database answers (the monitor probes them each second), else the reason. Redis and Ogmios upstreams do not
 * count: without them the service still answers (limits per instance, JSON-RPC errors), so it stays in rotation.
 */
import { Effect } from "effect";
import { Dependencies, notReadyReason } from "@layers/dependencies.ts";

export type Readiness = { readonly ready: true } | { readonly ready: false; readonly reason: string };

export const readiness: Effect.Effect<Readiness, never, Dependencies> = Effect.map(Dependencies, (board) => {
  const reason = notReadyReason(board);
  return reason === undefined ? { ready: true } : { ready: false, reason };
});
