/**
 * A gate for costly work: at most `slots` run at once, at most `waiting` more wait their turn, and anything past
 * that is refused at once (`full`) instead of piling up. Password hashing runs through one (password_hash.ts),
 * so a flood from any number of addresses holds a bounded amount of memory and CPU, and the rest is told to
 * come back (503 with Retry-After) without a queue growing behind it.
 */
import { Effect } from "effect";

export interface BoundedGate {
  readonly slots: number;
  readonly waiting: number;
  /** Runs `work` in a slot, waiting for one when all are taken; fails with `full()` when the queue is full. */
  readonly run: <A, E, R, F>(work: Effect.Effect<A, E, R>, full: () => F) => Effect.Effect<A, E | F, R>;
  /** How many run or wait now. */
  readonly pending: () => number;
}

export const makeBoundedGate = (slots: number, waiting: number): BoundedGate => {
  const semaphore = Effect.unsafeMakeSemaphore(slots);
  let pending = 0;
  return {
    slots,
    waiting,
    pending: () => pending,
    run: <A, E, R, F>(work: Effect.Effect<A, E, R>, full: () => F) =>
      Effect.suspend((): Effect.Effect<A, E | F, R> => {
        if (pending >= slots + waiting) return Effect.fail(full());
        pending++;
        return semaphore.withPermits(1)(work).pipe(Effect.ensuring(Effect.sync(() => pending--)));
      }),
  };
};
