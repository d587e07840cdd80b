/** The Blockfrost dialect's transactions endpoints, paths relative to a network's base URL (./api.ts). */
import { HttpApiGroup, OpenApi } from "@effect/platform";

export class TransactionsGroup extends HttpApiGroup.make("transactions")
  .annotateContext(
    OpenApi.annotations({
      description: "Transactions: content, UTxOs, CBOR, metadata, redeemers, submission",
    }),
  ) {}
