/** The Blockfrost dialect's pools endpoints, paths relative to a network's base URL (./api.ts). */
import { HttpApiGroup, OpenApi } from "@effect/platform";

export class PoolsGroup extends HttpApiGroup.make("pools")
  .annotateContext(OpenApi.annotations({ description: "Stake pools and governance (DReps)" })) {}
