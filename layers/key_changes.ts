/**
 * `KeyChanges`: word that a key (or every key of an account) changed, so every instance drops it from its key
 * cache at once (layers/access.ts) instead of at its next poll of the key store's change counter. With
 * REDIS_URL it is Redis pub/sub on `cds:<installation>:keys` (the installation being the service database's own
 * id, as the rate limits' keys), so a revocation on one instance reaches all of them in milliseconds; after a
 * lost connection comes back, subscribers hear `{}` (everything may have changed: messages were missed). Without
 * Redis only this instance hears its own changes, and the others rely on their poll.
 */
import type { Redis } from "ioredis";
import { Context, Effect, Layer, type Scope } from "effect";
import { ServiceDatabase } from "./service_db.ts";

/** Which cached keys to drop: that key, that account's keys, or (neither) all of them. */
export interface KeyChange {
  readonly keyId?: number;
  readonly accountId?: number;
}

export interface KeyChangesShape {
  /** Never fails: a change that cannot be announced is still seen at the next poll. */
  readonly publish: (change: KeyChange) => Effect.Effect<void>;
  /** Calls `onChange` for each change, published by any instance, until the scope closes. */
  readonly subscribe: (onChange: (change: KeyChange) => void) => Effect.Effect<void, never, Scope.Scope>;
  /** Whether other instances hear this one's changes (Redis); if not, they wait for their poll. */
  readonly shared: boolean;
}

export class KeyChanges extends Context.Tag("KeyChanges")<KeyChanges, KeyChangesShape>() {}

/** A message as published: only the ids that are whole numbers survive decoding, anything else means "all". */
export const decodeKeyChange = (text: string): KeyChange => {
  try {
    const value = JSON.parse(text);
    const id = (v: unknown) => (Number.isSafeInteger(v) ? { value: v as number } : undefined);
    const keyId = id(value?.keyId);
    const accountId = id(value?.accountId);
    return { ...(keyId && { keyId: keyId.value }), ...(accountId && { accountId: accountId.value }) };
  } catch {
    return {};
  }
};

/** This instance's listeners, told synchronously. */
const makeLocal = () => {
  const listeners = new Set<(change: KeyChange) => void>();
  const tell = (change: KeyChange) => {
    for (const listener of listeners) listener(change);
  };
  const subscribe = (onChange: (change: KeyChange) => void) =>
    Effect.acquireRelease(
      Effect.sync(() => listeners.add(onChange)),
      () => Effect.sync(() => listeners.delete(onChange)),
    ).pipe(Effect.asVoid);
  return { tell, subscribe };
};

export const KeyChangesLocal: Layer.Layer<KeyChanges> = Layer.sync(KeyChanges, () => {
  const local = makeLocal();
  return {
    publish: (change) => Effect.sync(() => local.tell(change)),
    subscribe: local.subscribe,
    shared: false,
  };
});

/** The channel of an installation (cds.installation's uuid). */
export const keyChangesChannel = (installation: string) => `cds:${installation}:keys`;

/** Publishes one change on `redis` (the CLIs use it after their own changes). */
export const publishKeyChange = (redis: Redis, installation: string, change: KeyChange) =>
  redis.publish(keyChangesChannel(installation), JSON.stringify(change));

const clientOptions = {
  // never queue a publish while disconnected (the poll covers it), and reconnect soon after an outage
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  retryStrategy: (times: number) => Math.min(times * 100, 1_000),
};

export const KeyChangesRedis = (url: string): Layer.Layer<KeyChanges, never, ServiceDatabase> =>
  Layer.scoped(
    KeyChanges,
    Effect.gen(function* () {
      const { sql } = yield* ServiceDatabase;
      const local = makeLocal();
      const installation = yield* sql<{ uuid: string }>`select uuid::text as uuid from cds.installation`.pipe(
        Effect.map((rows) => rows[0]?.uuid),
        Effect.catchAll((e) =>
          Effect.as(Effect.logWarning(`key changes stay local: ${e.message}`), undefined)
        ),
      );
      // without the installation's id there is no channel: this instance hears its own changes, the poll the rest
      if (installation === undefined) {
        return {
          publish: (change) => Effect.sync(() => local.tell(change)),
          subscribe: local.subscribe,
          shared: false,
        };
      }
      const channel = keyChangesChannel(installation);
      const { Redis } = yield* Effect.promise(() => import("ioredis"));
      // a subscribed connection can do nothing else, hence two; both connect in the background
      const open = (options: typeof clientOptions | Pick<typeof clientOptions, "retryStrategy">) =>
        Effect.acquireRelease(
          Effect.sync(() => new Redis(url, options)),
          (c) => Effect.sync(() => c.disconnect()),
        );
      const publisher = yield* open(clientOptions);
      const subscriber = yield* open({ retryStrategy: clientOptions.retryStrategy });
      publisher.on("error", () => {});
      subscriber.on("error", () => {});
      let connectedBefore = false;
      subscriber.on("ready", () => {
        // ioredis subscribes again by itself; what was published meanwhile is lost, so all keys are suspect
        if (connectedBefore) {
          local.tell({});
        }
        connectedBefore = true;
      });
      subscriber.on("message", (_channel: string, text: string) => local.tell(decodeKeyChange(text)));
      subscriber.subscribe(channel).catch(() => {});
      return {
        publish: (change) =>
          Effect.tryPromise(() => publisher.publish(channel, JSON.stringify(change))).pipe(
            // this instance at least hears it at once; the others at their poll
            Effect.catchAll((e) =>
              Effect.logWarning(`key change not published on Redis: ${e.message}`).pipe(
                Effect.zipRight(Effect.sync(() => local.tell(change))),
              )
            ),
          ),
        subscribe: local.subscribe,
        shared: true,
      };
    }),
  );
