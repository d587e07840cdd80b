/**
 * What every Redis-backed layer shares: the installation's id (the service database's own, so the instances of one
 * installation meet under `cds:<id>` and two installations on one Redis never do), and a client that reconnects
 * by itself and never queues a command while Redis is down (it fails at once, and the caller falls back).
 */
import { Effect, Option, Redacted } from "effect";
import type { Redis } from "ioredis";
import { AppConfig } from "./config.ts";
import { ServiceDatabase } from "./service_db.ts";

/** The installation's id, or "unknown" when the service database cannot say. */
export const installationId: Effect.Effect<string, never, ServiceDatabase> = Effect.flatMap(
  ServiceDatabase,
  ({ sql }) =>
    sql<{ uuid: string }>`select uuid::text as uuid from cds.installation`.pipe(
      Effect.map((rows) => rows[0]?.uuid ?? "unknown"),
      Effect.orElseSucceed(() => "unknown"),
    ),
);

/** How long a new client's first commands wait for its connection. */
const firstConnectionMs = 5_000;

/** A client of the configured Redis, closed with the scope; none when no `REDIS_URL` is set. */
export const sharedRedis = Effect.gen(function* () {
  const config = yield* AppConfig;
  if (Option.isNone(config.redisUrl)) return undefined;
  const url = Redacted.value(config.redisUrl.value);
  const { Redis } = yield* Effect.promise(() => import("ioredis"));
  const client = yield* Effect.acquireRelease(
    Effect.sync((): Redis => {
      const client = new Redis(url, {
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        retryStrategy: (times) => Math.min(times * 100, 1_000),
      });
      client.on("error", () => {});
      return client;
    }),
    (client) => Effect.promise(() => client.quit().then(() => {}, () => client.disconnect())),
  );
  // without a queue, a command sent before the connection is up fails: the first ones wait for it (start-up has
  // already seen Redis answer), so a newcomer learns the cluster's tip before reporting its own
  yield* Effect.async<void>((resume) => {
    if (client.status === "ready") return resume(Effect.void);
    const ready = () => resume(Effect.void);
    client.once("ready", ready);
    return Effect.sync(() => client.off("ready", ready));
  }).pipe(Effect.timeout(firstConnectionMs), Effect.ignore);
  return client;
});
