/**
 * Health, the liveness answer: each network's tip and database kind (spec: `/health` needs no key), and every
 * dependency's state. It answers 200 whenever the process serves, since a lost database is a reason to wait, not
 * to restart; `status` says `degraded` then, and `/ready` (readiness.ts) takes the instance out of rotation. It
 * runs no query: the tip is the one `ChainTips` polls every second (epoch and time from `ChainClock`), so it
 * answers in microseconds while a database is busy or gone; a failed poll, or one older than 5 s, marks its network
 * unavailable.
 */
import { Context, Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import { Dependencies, type DependencyStatus } from "@layers/dependencies.ts";
import type { Network } from "@schemas/network.ts";
import { ChainClock } from "@layers/chain_clock.ts";
import { ChainTips } from "@layers/chain_tips.ts";
import { type ChainMember, membersOf } from "./chain_members.ts";
import { chainDown } from "./chain_down.ts";

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
  readonly members?: ReadonlyArray<ChainMember>;
}

export interface Health {
  /** `degraded` when a network or any dependency is not ok; the process is alive either way. */
  readonly status: "ok" | "degraded";
  readonly networks: Readonly<Record<Network, NetworkHealth>>;
  readonly dependencies: Readonly<Record<string, DependencyStatus>>;
}

type HealthNeeds = ChainDatabases | Dependencies | ChainTips | ChainClock;

/**
 * The answer from the services as they stand: no I/O, so the route gives it without starting a fiber. Already in
 * its encoded form (strings for times, the schema's field order), so it is sent without a Schema pass: encoding it
 * allocated 30 KB a request, three quarters of /health's garbage.
 */
export const healthOf = (services: Context.Context<HealthNeeds>): Health => {
  const dbs = Context.get(services, ChainDatabases);
  const board = Context.get(services, Dependencies);
  const tips = Context.get(services, ChainTips);
  const clock = Context.get(services, ChainClock);
  const now = Date.now();
  const entries = dbs.all.map((db): readonly [Network, NetworkHealth] => {
    const watch = tips.get(db.network);
    const members = membersOf(db);
    const down = chainDown(services, db.network, now);
    // fields in the Health schema's order: the route sends this object as JSON without a Schema pass
    if (down !== undefined) {
      return [db.network, {
        status: "unavailable",
        database: db.backend,
        demoChain: db.demoChain,
        tip: null,
        error: down,
        ...(members ? { members } : {}),
      }];
    }
    const point = watch.current();
    const time = clock.get(db.network);
    const slot = point?.slot == null ? undefined : Number(point.slot);
    return [db.network, {
      status: "ok",
      database: db.backend,
      demoChain: db.demoChain,
      tip: point?.height == null || slot === undefined ? null : {
        blockNo: point.height,
        slotNo: slot,
        epochNo: time.epochOfSlot(slot),
        time: time.slotToTime(slot).toISOString(),
      },
      ...(members ? { members } : {}),
    }];
  });
  const networks = Object.fromEntries(entries) as Record<Network, NetworkHealth>;
  const dependencies = board.snapshot();
  const ok = entries.every(([, h]) => h.status === "ok") &&
    Object.values(dependencies).every((d) => d.state === "ok");
  return { status: ok ? "ok" : "degraded", networks, dependencies };
};

export const health = () => Effect.map(Effect.context<HealthNeeds>(), healthOf);
