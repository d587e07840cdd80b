/**
 * `GET /v1/ogmios/health` in Ogmios v6's shape. The official client fetches it before connecting and refuses a
 * null `lastTipUpdate`; here the tip is db-sync's newest block and synchronisation is how far its time is from now.
 */
import { Clock, Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { systemStart, tip } from "@src/queries/tip.ts";

export const ogmiosVersion = "6.14.0";

export const ogmiosHealth = Effect.fnUntraced(function* (network: Network) {
  const db = (yield* ChainDatabases).get(network);
  const now = yield* Clock.currentTimeMillis;
  const [t, start] = yield* Effect.all([tip(db.sql), systemStart(db.sql)]);
  const began = start?.getTime() ?? now;
  const synchronised = t ? Math.min(1, (t.time.getTime() - began) / Math.max(1, now - began)) : 0;
  return {
    startTime: new Date(began).toISOString(),
    lastKnownTip: t ? { slot: t.slotNo, id: t.hash, height: t.blockNo } : "origin",
    lastTipUpdate: (t?.time ?? new Date(began)).toISOString(),
    networkSynchronization: Math.floor(synchronised * 100_000) / 100_000,
    currentEra: "conway",
    connectionStatus: "connected",
    currentEpoch: t?.epochNo ?? 0,
    network,
    version: ogmiosVersion,
  };
});
