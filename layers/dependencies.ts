/**
 * `Dependencies`: what the service needs from outside (chain databases, the service database, Redis, Ogmios
 * upstreams) and how each one is doing: starting, ok or down with its last error. Start-up waits for each one with
 * backoff until the start-up deadline (`waitFor`); afterwards the monitor (dependency_monitor.ts) keeps the states
 * current. `/health` shows them, `/ready` decides from them, and the start-up handler names what it waits for.
 * The board is plain memory, made before any layer, so it answers while the layers are still being built.
 */
import { Context, Duration, Effect, Exit, Schedule, Scope } from "effect";

export type DependencyState = "starting" | "ok" | "down";

export interface DependencyStatus {
  readonly state: DependencyState;
  /** The last failure, kept after recovery so an operator can see what happened. */
  readonly lastError?: string;
  /** ISO time of the last change of state. */
  readonly since: string;
  /** Databases decide readiness; Redis and Ogmios upstreams degrade the service without taking it out. */
  readonly critical: boolean;
}

export interface DependencyBoard {
  /** When start-up gives up (epoch milliseconds). */
  readonly deadline: number;
  readonly set: (name: string, state: DependencyState, error?: string, critical?: boolean) => void;
  readonly snapshot: () => Readonly<Record<string, DependencyStatus>>;
  /** One dependency's state (no copy of the board: read on requests answered from kept bytes). */
  readonly status: (name: string) => DependencyStatus | undefined;
  /** Set once every layer is built and the real handler serves. */
  readonly started: () => boolean;
  readonly markStarted: () => void;
  /** Set when a signal starts the drain. */
  readonly stopping: () => boolean;
  readonly markStopping: () => void;
}

export class Dependencies extends Context.Tag("Dependencies")<Dependencies, DependencyBoard>() {}

export const makeDependencyBoard = (deadline: number): DependencyBoard => {
  const states = new Map<string, DependencyStatus>();
  let started = false;
  let stopping = false;
  return {
    deadline,
    set: (name, state, error, critical) => {
      const previous = states.get(name);
      states.set(name, {
        state,
        lastError: error ?? previous?.lastError,
        since: previous?.state === state ? previous.since : new Date().toISOString(),
        critical: critical ?? previous?.critical ?? true,
      });
    },
    snapshot: () => Object.fromEntries(states),
    status: (name) => states.get(name),
    started: () => started,
    markStarted: () => {
      started = true;
    },
    stopping: () => stopping,
    markStopping: () => {
      stopping = true;
    },
  };
};

/**
 * Why the service is not ready, or undefined when it is: shutting down, start-up not done, or a critical
 * dependency down.
 */
export const notReadyReason = (board: DependencyBoard): string | undefined => {
  if (board.stopping()) return "shutting down";
  const entries = Object.entries(board.snapshot());
  const waiting = entries.filter(([, s]) => s.critical && s.state !== "ok");
  const describe = ([name, s]: [string, DependencyStatus]) =>
    `${name} is ${s.state === "down" ? "down" : "not connected yet"}${
      s.lastError ? ` (${s.lastError})` : ""
    }`;
  if (!board.started()) {
    return `starting${waiting.length > 0 ? `: ${waiting.map(describe).join("; ")}` : ""}`;
  }
  return waiting.length > 0 ? waiting.map(describe).join("; ") : undefined;
};

const message = (e: unknown): string =>
  typeof e === "object" && e !== null && "message" in e
    ? String((e as { message: unknown }).message)
    : String(e);

/**
 * Runs `connect` until it succeeds, retrying failures that `transient` accepts with backoff (200 ms doubling to
 * 5 s) until the board's deadline; every attempt's outcome is posted under `name`. Without a board (tests that
 * build one layer) it is a single attempt.
 */
export const waitFor = <A, E, R>(
  name: string,
  connect: Effect.Effect<A, E, R>,
  options: { readonly transient?: (e: E) => boolean; readonly critical?: boolean } = {},
): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.serviceOption(Dependencies), (found) => {
    if (found._tag === "None") return connect;
    const board = found.value;
    const transient = options.transient ?? (() => true);
    board.set(name, "starting", undefined, options.critical ?? true);
    let attempts = 0;
    const attempt = connect.pipe(
      Effect.tapError((e) =>
        Effect.suspend(() => {
          attempts++;
          board.set(name, transient(e) ? "starting" : "down", message(e));
          return attempts === 1 || attempts % 10 === 0
            ? Effect.logWarning(`waiting for ${name}: ${message(e)}`)
            : Effect.void;
        })
      ),
    );
    const backoff = Schedule.exponential("200 millis").pipe(
      Schedule.either(Schedule.spaced("5 seconds")),
      Schedule.whileInput((e: E) => transient(e) && Date.now() < board.deadline),
      Schedule.modifyDelay((_, d) =>
        Duration.min(d, Duration.millis(Math.max(0, board.deadline - Date.now())))
      ),
    );
    return Effect.retry(attempt, backoff).pipe(
      Effect.tap(() => Effect.sync(() => board.set(name, "ok"))),
      Effect.tapError(() => Effect.sync(() => board.set(name, "down"))),
    );
  });

/**
 * A scoped attempt in a scope of its own: closed at once when it fails (a retried connection leaves no pool
 * behind), handed to the caller's scope when it succeeds.
 */
export const scopedAttempt = <A, E, R>(
  attempt: Effect.Effect<A, E, R | Scope.Scope>,
): Effect.Effect<A, E, Exclude<R, Scope.Scope> | Scope.Scope> =>
  Effect.flatMap(Scope.make(), (own) =>
    attempt.pipe(
      Scope.extend(own),
      Effect.onExit((exit) =>
        Exit.isSuccess(exit) ? Effect.addFinalizer(() => Scope.close(own, Exit.void)) : Scope.close(own, exit)
      ),
    ));
