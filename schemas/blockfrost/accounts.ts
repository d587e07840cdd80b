/** The Blockfrost dialect's accounts endpoints, paths relative to a network's base URL (./api.ts). */
import { HttpApiGroup, OpenApi } from "@effect/platform";

export class AccountsGroup extends HttpApiGroup.make("accounts")
  .annotateContext(OpenApi.annotations({ description: "Stake accounts and assets" })) {}
