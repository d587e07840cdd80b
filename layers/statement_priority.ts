/**
 * Which statements may wait: a fiber running `inBackground` marks its statements as background work, so the
 * embedded database's single session serves interactive requests' statements before them (`priority_lock.ts`).
 * PostgreSQL's pool ignores the mark (every statement gets a connection of its own).
 */
import { Effect, FiberRef } from "effect";

export const backgroundStatements: FiberRef.FiberRef<boolean> = FiberRef.unsafeMake(false);

/** Runs `effect` with its statements (and those of the fibers it forks) marked as background work. */
export const inBackground = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locally(effect, backgroundStatements, true);

const contentionOf = new WeakMap<object, () => number>();

/** Lets `backgroundContention` read how often interactive statements meet background ones on `client`. */
export const registerContention = (client: object, contention: () => number): void => {
  contentionOf.set(client, contention);
};

/**
 * Interactive statements that arrived while background work held or awaited `client`'s session, in the last one
 * to two seconds; 0 for a client with a session per statement (PostgreSQL's pool), where nothing waits.
 */
export const backgroundContention = (client: object): number => contentionOf.get(client)?.() ?? 0;
