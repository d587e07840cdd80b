/** Responses of the `/api/public/*` endpoints (spec: Public REST endpoints). */
import { Schema } from "effect";
import { DateTime, Lovelace } from "./primitives.ts";
import { PoolRelay } from "./explorer.ts";

export const TxStatus = Schema.Struct({
  found: Schema.Boolean,
  blockNo: Schema.NullOr(Schema.Int),
  blockTime: Schema.NullOr(DateTime),
  confirmations: Schema.NullOr(Schema.Int),
  fee: Schema.optional(Lovelace),
}).annotations({ identifier: "TxStatus" });
export type TxStatus = typeof TxStatus.Type;

export { RestProtocolParameters as ProtocolParameters } from "./protocol_parameters.ts";

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

/** `/api/public/pool-info`: the spec's own short view of a pool (PoolInfo in full is the explorer's). */
export const PublicPoolInfo = Schema.Struct({
  poolId: Schema.String.annotations({ description: "the pool's 28-byte key hash in hex" }),
  poolIdBech32: Schema.String.annotations({ description: "pool1… on every network (CIP-5, db-sync)" }),
  ticker: Schema.NullOr(Schema.String),
  name: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  margin: Schema.Number,
  fixedCost: Lovelace,
  pledge: Lovelace,
  activeStake: Lovelace,
  delegatorCount: Schema.Int,
  blocksLifetime: Schema.Int,
  blocksEpoch: Schema.Int,
  relays: Schema.Array(PoolRelay),
}).annotations({ identifier: "PublicPoolInfo" });

export const StakeAccount = Schema.Struct({
  registered: Schema.Boolean,
  delegatedPoolId: Schema.NullOr(Schema.String),
  rewardsBalance: Lovelace,
  totalStake: Lovelace,
}).annotations({ identifier: "StakeAccount" });
