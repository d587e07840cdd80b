/**
 * A network's chain database given as several PostgreSQL URLs (a primary and its streaming replicas, or replicas
 * only): one `SqlClient` over all of them. Each second every member's tip is read; a member that does not answer,
 * or trails the most advanced one by more than `maxLagBlocks`, is taken out of use, and taken back once it has
 * reached the tip the service reports again. The reported tip is the lowest among the members in use, so every
 * member a request may land on can answer for it, and a member taken back never moves it backwards.
 * Statements go to the members in use in turn; the statements of one request (`asOneRequest`, which the router
 * wraps each request's program in) stay on the member its first one used while that member stays in use, so they
 * see one database; a transaction stays on one connection of one member. With no member in use the network is unavailable (its
 * statements fail with a `SqlError`, mapped to 503 like any lost database) until one answers again.
 */
import type { Reactivity } from "@effect/experimental/Reactivity";
import { PgClient } from "@effect/sql-pg";
import * as Client from "@effect/sql/SqlClient";
import type { SqlClient } from "@effect/sql/SqlClient";
import type { Connection } from "@effect/sql/SqlConnection";
import { SqlError } from "@effect/sql/SqlError";
import { Duration, Effect, FiberRef, Redacted, Schedule, type Scope } from "effect";
import type { Network } from "@schemas/network.ts";
import { type PointRow, tipPointRow } from "@src/queries/chain_blocks.ts";
import { redactUrl } from "./config.ts";
import { scopedAttempt } from "./dependencies.ts";
import { type PoolUse, poolUseOf, registerPoolUse } from "./pool_use.ts";

/** `in use`: serving reads; `catching up`: answering, below the reported tip; `lagging`: past the lag bound. */
export type MemberState = "connecting" | "in use" | "catching up" | "lagging" | "down";

export interface MemberStatus {
  /** The member's URL, password masked. */
  readonly location: string;
  readonly state: MemberState;
  /** Its tip's block number as last read (undefined before the first read). */
  readonly blockNo: number | undefined;
  /** Statements (and transactions) sent to it since the start. */
  readonly reads: number;
  /** Why it is out of use (a failure, or how far it trails). */
  readonly reason?: string;
  /** ISO time of its last change of state. */
  readonly since: string;
}

export interface ChainReplicas {
  /** Routes each statement to a member in use (see the module header). */
  readonly sql: SqlClient;
  readonly members: () => ReadonlyArray<MemberStatus>;
  /** The tip the service reports (the lowest in use); fails when no member is in use. */
  readonly tip: Effect.Effect<PointRow | undefined, SqlError>;
  /** Why no member is in use, or undefined while one is. */
  readonly unavailable: () => string | undefined;
}

interface Member {
  readonly url: Redacted.Redacted<string>;
  readonly location: string;
  client: SqlClient | undefined;
  state: MemberState;
  tip: PointRow | undefined;
  reads: number;
  reason: string | undefined;
  since: string;
}

export interface ReplicaOptions {
  readonly network: Network;
  readonly urls: ReadonlyArray<Redacted.Redacted<string>>;
  readonly maxLagBlocks: number;
  /** Opens a member's client and checks it serves this network's layout (the same check as a single URL's). */
  readonly open: (
    url: Redacted.Redacted<string>,
  ) => Effect.Effect<SqlClient, SqlError, Scope.Scope | Reactivity>;
  /** Called after each round with whether a member is in use and why not (the dependency board). */
  readonly report?: (unavailable: string | undefined) => void;
}

const pollEvery = Duration.seconds(1);
const pollTimeout = Duration.seconds(2);

/** Per request: the member each replicated network's statements went to first (shared by forked fibers). */
const pinned = FiberRef.unsafeMake<Map<string, Member> | undefined>(undefined);

/**
 * Runs `effect` as one request: its statements on each replicated network go to one member (the first one's)
 * while it stays in use. Outside it every statement goes to the next member in use.
 */
export const asOneRequest = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => Effect.locally(effect, pinned, new Map()));

const failure = (message: string) => new SqlError({ message, cause: message });

const describe = (e: { readonly message: string; readonly cause?: unknown }) =>
  e.cause instanceof Error && e.cause.message ? e.cause.message : e.message;

/**
 * Opens the members: returns once one of them serves (the others keep being tried in the background, each
 * second), with the first round of tip reads done.
 */
export const makeChainReplicas = (
  o: ReplicaOptions,
): Effect.Effect<ChainReplicas, SqlError, Scope.Scope | Reactivity> =>
  Effect.gen(function* () {
    const now = () => new Date().toISOString();
    const members: Array<Member> = o.urls.map((url) => ({
      url,
      location: redactUrl(url),
      client: undefined,
      state: "connecting",
      tip: undefined,
      reads: 0,
      reason: undefined,
      since: now(),
    }));
    /** State changes not logged yet (made in synchronous code; each round logs them). */
    const changes: Array<{ readonly text: string; readonly out: boolean }> = [];
    const setState = (m: Member, state: MemberState, reason?: string) => {
      if (m.state !== state) {
        m.since = now();
        changes.push({
          text: `${o.network} chain database member ${m.location}: ${m.state} -> ${state}${
            reason ? ` (${reason})` : ""
          }`,
          out: state !== "in use",
        });
      }
      m.state = state;
      m.reason = reason;
    };
    const logChanges = Effect.suspend(() =>
      Effect.forEach(
        changes.splice(0),
        (c) => (c.out ? Effect.logWarning(c.text) : Effect.logInfo(c.text)),
        { discard: true },
      )
    );
    let reported: PointRow | undefined;
    let inUse: ReadonlyArray<Member> = [];
    let turn = 0;

    const unavailable = () =>
      inUse.length > 0
        ? undefined
        : `no member of the ${o.network} chain database is in use: ${
          members.map((m) => `${m.location} ${m.state}${m.reason ? ` (${m.reason})` : ""}`).join("; ")
        }`;

    const connect = (m: Member) =>
      scopedAttempt(o.open(m.url)).pipe(
        Effect.tap((client) => Effect.sync(() => (m.client = client))),
        Effect.tapError((e) => Effect.sync(() => setState(m, "down", describe(e)))),
      );

    /** Reads every connected member's tip, then decides who is in use and what tip is reported. */
    const round = Effect.gen(function* () {
      yield* Effect.forEach(members, (m) =>
        m.client === undefined ? Effect.void : tipPointRow(m.client).pipe(
          Effect.timeoutFail({
            duration: pollTimeout,
            onTimeout: () => failure(`no answer within ${Duration.toSeconds(pollTimeout)} s`),
          }),
          Effect.match({
            onSuccess: (tip) => {
              m.tip = tip;
              m.reason = undefined;
              if (m.state === "down" || m.state === "connecting") setState(m, "catching up");
            },
            onFailure: (e) => setState(m, "down", describe(e)),
          }),
        ), { concurrency: "unbounded", discard: true });
      const answering = members.filter((m) => m.client !== undefined && m.state !== "down");
      const height = (m: Member) => m.tip?.height ?? -1;
      const highest = Math.max(...answering.map(height));
      const eligible = answering.filter((m) => {
        const behind = highest - height(m);
        if (behind <= o.maxLagBlocks) return true;
        setState(
          m,
          "lagging",
          `${behind} blocks behind the most advanced member (REPLICA_MAX_LAG_BLOCKS ${o.maxLagBlocks})`,
        );
        return false;
      });
      const floor = reported?.height ?? -1;
      const stayed = eligible.filter((m) => m.state === "in use");
      // taken back once caught up: at or past the reported tip, so the reported tip never moves back; with none
      // left in use, every eligible member is (the network would otherwise stay unavailable)
      const next = stayed.length === 0
        ? eligible
        : eligible.filter((m) => m.state === "in use" || height(m) >= floor);
      for (const m of eligible) {
        if (next.includes(m)) setState(m, "in use");
        else setState(m, "catching up", `at block ${height(m)}, below the reported tip ${floor}`);
      }
      inUse = next;
      const lowest = next.reduce<Member | undefined>(
        (low, m) => (low && height(low) <= height(m) ? low : m),
        undefined,
      );
      if (lowest) reported = lowest.tip;
      o.report?.(unavailable());
      yield* logChanges;
    });

    // at start: the members in parallel, done once one serves; the rest are tried again with the rounds
    yield* Effect.raceAll(members.map((m) => Effect.as(connect(m), m))).pipe(
      Effect.mapError((e) => failure(`no member answers: ${describe(e)}`)),
    );
    yield* round;
    const reconnect = Effect.forEach(
      members,
      (m) => (m.client === undefined ? Effect.ignore(connect(m)) : Effect.void),
      { concurrency: "unbounded", discard: true },
    );
    // apart: a member whose address does not answer holds up its connection attempt, not the rounds
    yield* Effect.forkScoped(Effect.repeat(round, Schedule.spaced(pollEvery)));
    yield* Effect.forkScoped(Effect.repeat(reconnect, Schedule.spaced(pollEvery)));

    const choose = (tried: ReadonlySet<Member>) =>
      Effect.gen(function* () {
        const pins = yield* FiberRef.get(pinned);
        const held = pins?.get(o.network);
        if (held && inUse.includes(held) && !tried.has(held)) return held;
        const candidates = inUse.filter((m) => !tried.has(m));
        if (candidates.length === 0) return yield* Effect.fail(failure(unavailable()!));
        const m = candidates[turn++ % candidates.length]!;
        pins?.set(o.network, m);
        return m;
      });
    // a member whose pool cannot hand out a connection (its server stopped) is out at once, not at the next
    // round, and the statement goes to another: only statements already running on it fail
    const acquireFrom = (tried: ReadonlySet<Member>): Effect.Effect<Connection, SqlError, Scope.Scope> =>
      Effect.flatMap(choose(tried), (m) => {
        m.reads++;
        return Effect.catchAll(m.client!.reserve, (e) => {
          setState(m, "down", describe(e));
          inUse = inUse.filter((x) => x !== m);
          o.report?.(unavailable());
          const next = new Set([...tried, m]);
          return inUse.some((x) => !next.has(x)) ? acquireFrom(next) : Effect.fail(e);
        });
      });
    const acquirer = acquireFrom(new Set());
    const sql = yield* Client.make({
      acquirer,
      compiler: PgClient.makeCompiler(),
      spanAttributes: [["db.system.name", "postgresql"]],
    });
    registerPoolUse(sql, () =>
      members.reduce<PoolUse>((sum, m) => {
        const use = m.client ? poolUseOf(m.client) : undefined;
        return use
          ? {
            open: sum.open + use.open,
            busy: sum.busy + use.busy,
            waiting: sum.waiting + use.waiting,
            acquisitions: sum.acquisitions + use.acquisitions,
            waitSeconds: sum.waitSeconds + use.waitSeconds,
          }
          : sum;
      }, { open: 0, busy: 0, waiting: 0, acquisitions: 0, waitSeconds: 0 }));

    return {
      sql,
      members: () =>
        members.map((m) => ({
          location: m.location,
          state: m.state,
          blockNo: m.tip?.height ?? undefined,
          reads: m.reads,
          ...(m.reason === undefined ? {} : { reason: m.reason }),
          since: m.since,
        })),
      tip: Effect.suspend(
        () => (inUse.length === 0 ? Effect.fail(failure(unavailable()!)) : Effect.succeed(reported)),
      ),
      unavailable,
    };
  });
