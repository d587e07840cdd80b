/**
 * The Blockfrost dialect's transactions endpoints, paths relative to a network's base URL (./api.ts), answers in
 * Blockfrost's published shapes: a transaction's content, its UTxOs, CBOR, metadata and redeemers, and
 * submission (`POST /tx/submit`, the serialised transaction as `application/cbor`).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint";
import * as HttpApiGroup from "@effect/platform/HttpApiGroup";
import * as HttpApiSchema from "@effect/platform/HttpApiSchema";
import * as OpenApi from "@effect/platform/OpenApi";
import { Schema } from "effect";
import { BfAmount, BfQuantity } from "./wire.ts";

const TxHash = Schema.String.pipe(
  Schema.pattern(/^[0-9a-fA-F]{64}$/, {
    message: () => "expected a transaction hash: 64 hexadecimal characters",
  }),
).annotations({ description: "A transaction hash: 64 hexadecimal characters" });

const txPath = Schema.Struct({ hash: TxHash });

const Hex = Schema.String;

export const TxContent = Schema.Struct({
  hash: Hex,
  block: Hex,
  block_height: Schema.Int,
  block_time: Schema.Int.annotations({ description: "The block's time, in seconds since the epoch" }),
  slot: Schema.Int,
  index: Schema.Int.annotations({ description: "The transaction's index within its block" }),
  output_amount: BfAmount,
  fees: BfQuantity,
  deposit: BfQuantity.annotations({
    description: "Deposits paid minus deposits refunded (db-sync's tx.deposit)",
  }),
  size: Schema.Int,
  invalid_before: Schema.NullOr(Schema.String),
  invalid_hereafter: Schema.NullOr(Schema.String),
  utxo_count: Schema.Int,
  withdrawal_count: Schema.Int,
  mir_cert_count: Schema.Int,
  delegation_count: Schema.Int,
  stake_cert_count: Schema.Int,
  pool_update_count: Schema.Int,
  pool_retire_count: Schema.Int,
  asset_mint_or_burn_count: Schema.Int,
  redeemer_count: Schema.Int,
  valid_contract: Schema.Boolean,
  treasury_donation: BfQuantity,
}).annotations({ identifier: "BlockfrostTxContent" });

const utxoFields = {
  address: Schema.String,
  amount: BfAmount,
  output_index: Schema.Int,
  data_hash: Schema.NullOr(Hex),
  inline_datum: Schema.NullOr(Hex),
  reference_script_hash: Schema.NullOr(Hex),
  collateral: Schema.Boolean,
};

export const TxContentUtxo = Schema.Struct({
  hash: Hex,
  inputs: Schema.Array(Schema.Struct({
    ...utxoFields,
    tx_hash: Hex,
    reference: Schema.Boolean,
  })),
  outputs: Schema.Array(Schema.Struct({
    ...utxoFields,
    consumed_by_tx: Schema.NullOr(Hex).annotations({
      description:
        "The transaction that spent the output; always null for a valid transaction's collateral return",
    }),
  })),
}).annotations({ identifier: "BlockfrostTxContentUtxo" });

export const TxContentCbor = Schema.Struct({ cbor: Hex }).annotations({
  identifier: "BlockfrostTxContentCbor",
});

export const TxContentMetadata = Schema.Array(Schema.Struct({
  label: Schema.String,
  json_metadata: Schema.Unknown,
})).annotations({ identifier: "BlockfrostTxContentMetadata" });

export const TxContentMetadataCbor = Schema.Array(Schema.Struct({
  label: Schema.String,
  cbor_metadata: Schema.NullOr(Schema.String).annotations({
    description: "Deprecated: `metadata` with `\\x`",
  }),
  metadata: Schema.NullOr(Hex),
})).annotations({ identifier: "BlockfrostTxContentMetadataCbor" });

export const TxContentRedeemers = Schema.Array(Schema.Struct({
  tx_index: Schema.Int,
  purpose: Schema.String,
  script_hash: Schema.NullOr(Hex),
  redeemer_data_hash: Hex,
  datum_hash: Hex.annotations({ description: "Deprecated: the redeemer data hash again" }),
  unit_mem: BfQuantity,
  unit_steps: BfQuantity,
  fee: Schema.NullOr(BfQuantity),
})).annotations({ identifier: "BlockfrostTxContentRedeemers" });

const summary = (text: string) => OpenApi.annotations({ summary: text });

export const tx = HttpApiEndpoint.get("tx", "/txs/:hash")
  .setPath(txPath)
  .addSuccess(TxContent)
  .annotateContext(summary("A transaction's content"));

export const txUtxos = HttpApiEndpoint.get("txUtxos", "/txs/:hash/utxos")
  .setPath(txPath)
  .addSuccess(TxContentUtxo)
  .annotateContext(summary("A transaction's inputs (collateral and reference ones flagged) and outputs"));

export const txCbor = HttpApiEndpoint.get("txCbor", "/txs/:hash/cbor")
  .setPath(txPath)
  .addSuccess(TxContentCbor)
  .annotateContext(summary("A transaction's CBOR, where the chain database keeps it (db-sync's tx_cbor)"));

export const txMetadata = HttpApiEndpoint.get("txMetadata", "/txs/:hash/metadata")
  .setPath(txPath)
  .addSuccess(TxContentMetadata)
  .annotateContext(summary("A transaction's metadata, label by label"));

export const txMetadataCbor = HttpApiEndpoint.get("txMetadataCbor", "/txs/:hash/metadata/cbor")
  .setPath(txPath)
  .addSuccess(TxContentMetadataCbor)
  .annotateContext(
    summary("A transaction's metadata as CBOR, label by label (Blaze waits for confirmation here)"),
  );

export const txRedeemers = HttpApiEndpoint.get("txRedeemers", "/txs/:hash/redeemers")
  .setPath(txPath)
  .addSuccess(TxContentRedeemers)
  .annotateContext(summary("A transaction's redeemers with their execution units and fee"));

export const txSubmit = HttpApiEndpoint.post("txSubmit", "/tx/submit")
  .setPayload(
    Schema.Uint8ArrayFromSelf.pipe(
      HttpApiSchema.withEncoding({ kind: "Uint8Array", contentType: "application/cbor" }),
    ),
  )
  .addSuccess(Hex.annotations({ description: "The submitted transaction's id" }))
  .annotateContext(summary(
    "Submits a serialised transaction (`Content-Type: application/cbor`: its bytes, or their hex text) to the " +
      "network's node; a ledger rejection is a 400 whose message is the node's reason",
  ));

export class TransactionsGroup extends HttpApiGroup.make("transactions")
  .add(tx)
  .add(txUtxos)
  .add(txCbor)
  .add(txMetadata)
  .add(txMetadataCbor)
  .add(txRedeemers)
  .add(txSubmit)
  .annotateContext(
    OpenApi.annotations({
      description: "Transactions: content, UTxOs, CBOR, metadata, redeemers, submission",
    }),
  ) {}
