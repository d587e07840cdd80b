/** The Blockfrost dialect's addresses endpoints, paths relative to a network's base URL (./api.ts). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint";
import * as HttpApiGroup from "@effect/platform/HttpApiGroup";
import * as OpenApi from "@effect/platform/OpenApi";
import { Schema } from "effect";
import { BfAmount, BfPaging } from "./wire.ts";

const addressParam = Schema.String.annotations({
  description: "A bech32 payment address (either case), a Byron base58 address; for UTxOs also a payment " +
    "credential, `addr_vkh1…` or `script1…` (every output paid to it, whatever the address)",
});

const addressPath = Schema.Struct({ address: addressParam });

/** A unit Blockfrost names a token by: policy id (56 hex) and hex asset name (up to 64 hex). */
export const BfAssetUnit = Schema.String.pipe(
  Schema.pattern(/^[0-9a-fA-F]{56}([0-9a-fA-F]{2}){0,32}$/, {
    message: () => "must be a policy id (56 hexadecimal characters) and a hex asset name",
  }),
);

export const BfAddress = Schema.Struct({
  address: Schema.String,
  amount: BfAmount,
  stake_address: Schema.NullOr(Schema.String),
  type: Schema.Literal("byron", "shelley"),
  script: Schema.Boolean,
}).annotations({ identifier: "BlockfrostAddress" });

export const BfAddressUtxo = Schema.Struct({
  address: Schema.String,
  tx_hash: Schema.String,
  /** Deprecated by Blockfrost: the output index again. */
  tx_index: Schema.Int,
  output_index: Schema.Int,
  amount: BfAmount,
  block: Schema.String.annotations({ description: "The hash of the block holding the output" }),
  data_hash: Schema.NullOr(Schema.String),
  inline_datum: Schema.NullOr(Schema.String.annotations({ description: "CBOR (hex)" })),
  reference_script_hash: Schema.NullOr(Schema.String),
}).annotations({ identifier: "BlockfrostAddressUtxo" });

export const BfAddressTransaction = Schema.Struct({
  tx_hash: Schema.String,
  tx_index: Schema.Int.annotations({ description: "The transaction's index in its block" }),
  block_height: Schema.Int,
  block_time: Schema.Int.annotations({ description: "UNIX seconds" }),
}).annotations({ identifier: "BlockfrostAddressTransaction" });

/** `from` / `to`: a block height, optionally `:index` within the block (inclusive). */
const blockBound = Schema.optional(
  Schema.String.pipe(
    Schema.pattern(/^\d{1,10}(:\d{1,5})?$/, {
      message: () => "must be a block height, optionally followed by :index within the block",
    }),
  ),
);

export const address = HttpApiEndpoint.get("address", "/addresses/:address")
  .setPath(addressPath)
  .addSuccess(BfAddress)
  .annotateContext(
    OpenApi.annotations({ summary: "An address: what its UTxOs hold, its stake address and era" }),
  );

export const addressUtxos = HttpApiEndpoint.get("addressUtxos", "/addresses/:address/utxos")
  .setPath(addressPath)
  .setUrlParams(BfPaging)
  .addSuccess(Schema.Array(BfAddressUtxo))
  .annotateContext(OpenApi.annotations({ summary: "An address's or payment credential's unspent outputs" }));

export const addressUtxosOfAsset = HttpApiEndpoint.get(
  "addressUtxosOfAsset",
  "/addresses/:address/utxos/:asset",
)
  .setPath(Schema.Struct({ address: addressParam, asset: BfAssetUnit }))
  .setUrlParams(BfPaging)
  .addSuccess(Schema.Array(BfAddressUtxo))
  .annotateContext(OpenApi.annotations({ summary: "An address's unspent outputs holding an asset" }));

export const addressTransactions = HttpApiEndpoint.get(
  "addressTransactions",
  "/addresses/:address/transactions",
)
  .setPath(addressPath)
  .setUrlParams(Schema.Struct({ ...BfPaging.fields, from: blockBound, to: blockBound }))
  .addSuccess(Schema.Array(BfAddressTransaction))
  .annotateContext(
    OpenApi.annotations({ summary: "Transactions paying the address or spending its outputs" }),
  );

export class AddressesGroup extends HttpApiGroup.make("addresses")
  .add(address)
  .add(addressUtxos)
  .add(addressUtxosOfAsset)
  .add(addressTransactions)
  .annotateContext(
    OpenApi.annotations({
      description: "Addresses: balances, UTxOs (also by payment credential) and transactions",
    }),
  ) {}
