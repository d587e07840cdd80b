/**
 * Submitters take turns in arrival order, as a node's mempool makes them (ouroboros-consensus' implAddTx: one
 * FIFO lock, and only its holder waits for room), so a small transaction never overtakes an earlier one waiting
 * for room. A submitter interrupted while queued or waiting (its client gone) leaves the queue and hands the turn
 * on: its transaction is never added later. Effect's Semaphore is not used: a fresh taker may barge in ahead of
 * a woken waiter.
 */
import { Deferred, Effect, Exit, FiberId } from "effect";

interface Entry {
  readonly id: string;
  readonly turn: Deferred.Deferred<void>;
  /** Whether its last attempt found no room (only the first entry ever attempts). */
  blocked: boolean;
}

/** What happened to a submitter that could not be tried at once, for the logs. */
export type Waiting = "queued" | "no room" | "abandoned";

export interface AdmissionQueue {
  /** Runs `attempt` when it is this submitter's turn, again after each `wakeUp` while it answers `undefined`. */
  readonly inTurn: <A, E, R>(
    id: string,
    attempt: Effect.Effect<A | undefined, E, R>,
    wakeUp: () => Deferred.Deferred<void>,
    report: (what: Waiting, ahead: number) => Effect.Effect<void>,
  ) => Effect.Effect<A, E, R>;
  /** The transactions waiting for room, in order: empty while the first one is being tried. */
  readonly waiting: () => ReadonlyArray<string>;
}

export const makeAdmissionQueue = (): AdmissionQueue => {
  const queue: Array<Entry> = [];

  const enter = (id: string) =>
    Effect.sync(() => {
      const entry: Entry = { id, turn: Deferred.unsafeMake<void>(FiberId.none), blocked: false };
      queue.push(entry);
      if (queue.length === 1) Deferred.unsafeDone(entry.turn, Exit.void);
      return entry;
    });

  const leave = (entry: Entry) =>
    Effect.sync(() => {
      const at = queue.indexOf(entry);
      if (at < 0) return;
      queue.splice(at, 1);
      if (at === 0 && queue[0]) Deferred.unsafeDone(queue[0].turn, Exit.void);
    });

  const inTurn = <A, E, R>(
    id: string,
    attempt: Effect.Effect<A | undefined, E, R>,
    wakeUp: () => Deferred.Deferred<void>,
    report: (what: Waiting, ahead: number) => Effect.Effect<void>,
  ): Effect.Effect<A, E, R> =>
    Effect.acquireUseRelease(enter(id), (entry) => {
      const wait = (what: Waiting, until: Deferred.Deferred<void>) =>
        report(what, queue.indexOf(entry)).pipe(
          Effect.zipRight(Deferred.await(until)),
          Effect.onInterrupt(() => report("abandoned", queue.indexOf(entry))),
        );
      return Effect.gen(function* () {
        if (queue[0] !== entry) yield* wait("queued", entry.turn);
        else yield* Deferred.await(entry.turn);
        for (;;) {
          // taken before the attempt, so a change made while it runs still wakes it
          const changed = wakeUp();
          entry.blocked = false;
          const outcome = yield* attempt;
          if (outcome !== undefined) return outcome;
          entry.blocked = true;
          yield* wait("no room", changed);
        }
      });
    }, leave);

  return {
    inTurn,
    waiting: () => (queue[0]?.blocked ? queue.map((e) => e.id) : queue.slice(1).map((e) => e.id)),
  };
};
