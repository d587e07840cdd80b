/**
 * The only composition root: every infrastructure layer is assembled here, chosen by configuration (PostgreSQL
 * where a URL is set, embedded PGlite otherwise; Redis for shared rate limits when REDIS_URL is set, memory
 * otherwise; key changes announced on Redis too). Programs name only the Tags. The one piece a protocol adapter makes, the GraphQL schema built from a
 * database's model, comes in as `buildGraphqlSchema` (src/main.ts passes src/graphql/build_schema.ts).
 */
import { Layer, Option, Redacted } from "effect";
import { AccessLive } from "./access.ts";
import { AccountStoreLive } from "./account_store.ts";
import { AttemptThrottleLive } from "./attempt_throttle.ts";
import { MailerLive } from "./mailer.ts";
import { CacheMemory } from "./cache.ts";
import { AddressSummariesLive } from "./address_summaries.ts";
import { PriceFeedLive } from "./price_feed.ts";
import { RelayProbeTcp } from "./relay_probe.ts";
import { AppConfig, type AppConfigShape } from "./config.ts";
import { ChainDatabasesLive } from "./chain_db.ts";
import { Dependencies, type DependencyBoard } from "./dependencies.ts";
import { DependencyMonitorLive } from "./dependency_monitor.ts";
import { ChainClockLive } from "./chain_clock.ts";
import { ChainTipsLive } from "./chain_tips.ts";
import { NodeClientsLive } from "./node_clients_live.ts";
import { type BuildGraphqlSchema, makeGraphqlSchemasLive } from "./graphql_schemas.ts";
import { KeyChangesLocal, KeyChangesRedis } from "./key_changes.ts";
import { KeyStoreLive } from "./key_store.ts";
import { MetricsLive } from "./metrics.ts";
import { MetricsSourcesLive } from "./metrics_sources.ts";
import { RateLimiterMemory, RateLimiterRedis } from "./rate_limiter.ts";
import { ServiceDatabaseLive } from "./service_db.ts";
import { UsageLive } from "./usage.ts";

/** `board` receives each dependency's state while the layers wait for it, and after (dependencies.ts). */
export const makeAppLayer = (
  config: AppConfigShape,
  board: DependencyBoard,
  buildGraphqlSchema: BuildGraphqlSchema,
) => {
  const configLayer = Layer.succeed(AppConfig, config);
  const chains = ChainDatabasesLive.pipe(Layer.provide(configLayer));
  const serviceDb = ServiceDatabaseLive.pipe(Layer.provide(configLayer));
  const tips = ChainTipsLive.pipe(Layer.provide(chains));
  const limiter = Option.match(config.redisUrl, {
    onNone: () => RateLimiterMemory(config.limits),
    onSome: (url) => RateLimiterRedis(Redacted.value(url), config.limits),
  });
  // key changes reach every instance's key cache through Redis when there is one
  const keyChanges = Option.match(config.redisUrl, {
    onNone: () => KeyChangesLocal,
    onSome: (url) => KeyChangesRedis(Redacted.value(url)).pipe(Layer.provide(serviceDb)),
  });
  // one registry, always recording: exposure is the server's (METRICS_TOKEN, METRICS_PORT)
  const metrics = MetricsLive;
  const keyStore = KeyStoreLive(config.apiKeyPrefix).pipe(Layer.provide(keyChanges));
  const access = AccessLive.pipe(
    Layer.provide(Layer.mergeAll(keyStore, keyChanges, UsageLive, limiter, metrics)),
    Layer.provide(serviceDb),
  );
  const cache = CacheMemory;
  const nodeClients = NodeClientsLive.pipe(Layer.provide(Layer.mergeAll(configLayer, chains, cache, tips)));
  const app = Layer.mergeAll(
    configLayer,
    chains,
    ChainClockLive.pipe(Layer.provide(chains)),
    tips,
    nodeClients,
    makeGraphqlSchemasLive(buildGraphqlSchema).pipe(Layer.provide(Layer.merge(chains, configLayer))),
    serviceDb,
    access,
    // accounts (issue 16): the dashboard's programs
    AccountStoreLive(config.apiKeyPrefix).pipe(Layer.provide(Layer.merge(serviceDb, keyChanges))),
    AttemptThrottleLive.pipe(Layer.provide(Layer.merge(configLayer, serviceDb))),
    MailerLive.pipe(Layer.provide(configLayer)),
    cache,
    AddressSummariesLive.pipe(Layer.provide(Layer.mergeAll(cache, chains, tips, serviceDb))),
    PriceFeedLive.pipe(Layer.provide(configLayer)),
    RelayProbeTcp,
    DependencyMonitorLive.pipe(Layer.provide(configLayer)),
    metrics,
    MetricsSourcesLive.pipe(Layer.provide(Layer.mergeAll(metrics, chains, serviceDb, cache, nodeClients))),
  );
  return Layer.provideMerge(app, Layer.succeed(Dependencies, board));
};
