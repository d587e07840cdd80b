/** The Blockfrost dialect's utils endpoints, paths relative to a network's base URL (./api.ts). */
import { HttpApiGroup, OpenApi } from "@effect/platform";

export class UtilsGroup extends HttpApiGroup.make("utils")
  .annotateContext(
    OpenApi.annotations({ description: "Script evaluation, with extra UTxOs for chained transactions" }),
  ) {}
