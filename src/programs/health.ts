/**
 * Health: each network's tip and database kind, read live from its chain database (spec: `/health` needs no key).
 * A network whose database does not answer within two seconds makes the whole answer unhealthy (HTTP 503).
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { tip } from "@src/queries/tip.ts";

export interface NetworkHealth {
  readonly status: "ok" | "unavailable";
  readonly database: "postgres" | "pglite";
  readonly demoChain: boolean;
  readonly tip: {
    readonly blockNo: number;
    readonly slotNo: number;
    readonly epochNo: number;
    readonly time: string;
  } | null;
  readonly error?: string;
}

export interface Health {
  readonly status: "ok" | "unavailable";
  readonly networks: Readonly<Record<Network, NetworkHealth>>;
}

export const health = Effect.fn("health.get")(function* () {
  const dbs = yield* ChainDatabases;
  const entries = yield* Effect.forEach(
    dbs.all,
    (db) =>
      tip(db.sql).pipe(
        Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => new Error("no answer within 2 s") }),
        Effect.map((t): NetworkHealth => ({
          status: "ok",
          database: db.backend,
          demoChain: db.demoChain,
          tip: t
            ? { blockNo: t.blockNo, slotNo: t.slotNo, epochNo: t.epochNo, time: t.time.toISOString() }
            : null,
        })),
        Effect.catchAll((e) =>
          Effect.succeed<NetworkHealth>({
            status: "unavailable",
            database: db.backend,
            demoChain: db.demoChain,
            tip: null,
            error: e.message,
          })
        ),
        Effect.map((h) => [db.network, h] as const),
      ),
    { concurrency: "unbounded" },
  );
  const networks = Object.fromEntries(entries) as Record<Network, NetworkHealth>;
  const status = entries.every(([, h]) => h.status === "ok") ? "ok" : "unavailable";
  return { status, networks } satisfies Health;
});
