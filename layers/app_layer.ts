/**
 * The only composition root: every infrastructure layer is assembled here, chosen by configuration (PostgreSQL
 * where a URL is set, embedded PGlite otherwise). Programs name only the Tags.
 */
import { Layer } from "effect";
import { AppConfig, type AppConfigShape } from "./config.ts";
import { ChainDatabasesLive } from "./chain_db.ts";
import { ChainClockLive } from "./chain_clock.ts";
import { ServiceDatabaseLive } from "./service_db.ts";

export const makeAppLayer = (config: AppConfigShape) => {
  const configLayer = Layer.succeed(AppConfig, config);
  const chains = ChainDatabasesLive.pipe(Layer.provide(configLayer));
  return Layer.mergeAll(
    chains,
    ChainClockLive.pipe(Layer.provide(chains)),
    ServiceDatabaseLive.pipe(Layer.provide(configLayer)),
  );
};
