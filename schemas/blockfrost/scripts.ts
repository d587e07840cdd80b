/** The Blockfrost dialect's scripts endpoints, paths relative to a network's base URL (./api.ts). */
import { HttpApiGroup, OpenApi } from "@effect/platform";

export class ScriptsGroup extends HttpApiGroup.make("scripts")
  .annotateContext(OpenApi.annotations({ description: "Scripts and datums" })) {}
