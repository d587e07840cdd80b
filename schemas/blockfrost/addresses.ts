/** The Blockfrost dialect's addresses endpoints, paths relative to a network's base URL (./api.ts). */
import { HttpApiGroup, OpenApi } from "@effect/platform";

export class AddressesGroup extends HttpApiGroup.make("addresses")
  .annotateContext(
    OpenApi.annotations({
      description: "Addresses: balances, UTxOs (also by payment credential) and transactions",
    }),
  ) {}
