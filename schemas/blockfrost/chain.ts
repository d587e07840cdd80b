/**
 * The Blockfrost dialect's chain endpoints (`/`, health, network, genesis, epochs, blocks), paths relative to a
 * network's base URL (schemas/blockfrost/api.ts), answers in Blockfrost's published shapes.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform";
import { Schema } from "effect";

export const root = HttpApiEndpoint.get("root", "/")
  .addSuccess(Schema.Struct({ url: Schema.String, version: Schema.String }))
  .annotateContext(OpenApi.annotations({ summary: "The API's root: where it lives and its version" }));

export const health = HttpApiEndpoint.get("health", "/health")
  .addSuccess(Schema.Struct({ is_healthy: Schema.Boolean }))
  .annotateContext(OpenApi.annotations({ summary: "Whether the network's chain database answers" }));

export const healthClock = HttpApiEndpoint.get("healthClock", "/health/clock")
  .addSuccess(Schema.Struct({ server_time: Schema.Int }))
  .annotateContext(OpenApi.annotations({ summary: "The server's time, in milliseconds since the epoch" }));

export class ChainGroup extends HttpApiGroup.make("chain")
  .add(root)
  .add(health)
  .add(healthClock)
  .annotateContext(OpenApi.annotations({ description: "Health, network, genesis, epochs and blocks" })) {}
