/**
 * Health, the liveness answer: each network's tip and database kind, read live from its chain database (spec:
 * `/health` needs no key), and every dependency's state. It answers 200 whenever the process serves, since a
 * lost database is a reason to wait, not to restart; `status` says `degraded` then, and `/ready` (readiness.ts)
 * takes the instance out of rotation. A database the monitor already knows to be down is not queried, so the
 * answer stays fast during an outage.
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import { Dependencies, type DependencyStatus } from "@layers/dependencies.ts";
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
  /** `degraded` when a network or any dependency is not ok; the process is alive either way. */
  readonly status: "ok" | "degraded";
  readonly networks: Readonly<Record<Network, NetworkHealth>>;
  readonly dependencies: Readonly<Record<string, DependencyStatus>>;
}

export const health = Effect.fn("health.get")(function* () {
  const dbs = yield* ChainDatabases;
  const board = yield* Dependencies;
  const known = board.snapshot();
  const entries = yield* Effect.forEach(
    dbs.all,
    (db) => {
      const watched = known[`${db.network} chain database`];
      const read = watched?.state === "down"
        ? Effect.fail(new Error(watched.lastError ?? "the database does not answer"))
        : tip(db.sql);
      return read.pipe(
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
      );
    },
    { concurrency: "unbounded" },
  );
  const networks = Object.fromEntries(entries) as Record<Network, NetworkHealth>;
  const dependencies = board.snapshot();
  const ok = entries.every(([, h]) => h.status === "ok") &&
    Object.values(dependencies).every((d) => d.state === "ok");
  return { status: ok ? "ok" : "degraded", networks, dependencies } satisfies Health;
});
