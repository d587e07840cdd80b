/** Responses of the `/api/public/*` endpoints (spec: Public REST endpoints). */
import { Schema } from "effect";
import { DateTime, Lovelace } from "./primitives.ts";

export const TxStatus = Schema.Struct({
  found: Schema.Boolean,
  blockNo: Schema.NullOr(Schema.Int),
  blockTime: Schema.NullOr(DateTime),
  confirmations: Schema.NullOr(Schema.Int),
  fee: Schema.optional(Lovelace),
}).annotations({ identifier: "TxStatus" });
export type TxStatus = typeof TxStatus.Type;

/** An open object in Ogmios' ledger-query format (the spec names a few members; all of Ogmios' are present). */
export const ProtocolParameters = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  identifier: "ProtocolParameters",
  description: "Ogmios v6 ProtocolParameters: minFeeCoefficient, minFeeConstant, maxBlockBodySize, " +
    "maxTransactionSize, stakeCredentialDeposit, stakePoolDeposit, plutusCostModels, ...",
});

export const Price = Schema.Struct({
  ada_usd: Schema.Number,
  updated_at: DateTime,
}).annotations({ identifier: "Price" });

export const PoolStatus = Schema.Struct({
  activeStake: Schema.Int.annotations({ description: "whole ADA" }),
  delegators: Schema.Int,
  blocksMinted: Schema.Int.annotations({ description: "blocks in the current epoch" }),
  lifetimeBlocks: Schema.Int,
  margin: Schema.Number,
  pledge: Schema.Int.annotations({ description: "whole ADA" }),
  relays: Schema.Array(Schema.Struct({ name: Schema.String, healthy: Schema.Boolean })),
  network: Schema.Struct({ tip: Schema.Struct({ slot: Schema.Int, epoch: Schema.Int, block: Schema.Int }) }),
}).annotations({ identifier: "PoolStatus" });
