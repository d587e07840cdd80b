/**
 * The Blockfrost dialect's pools and governance endpoints, paths relative to a network's base URL (./api.ts),
 * answers in Blockfrost's published shapes (`pool`, `dreps`, `drep`).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint";
import * as HttpApiGroup from "@effect/platform/HttpApiGroup";
import * as OpenApi from "@effect/platform/OpenApi";
import { Schema } from "effect";
import { BfPaging, BfQuantity } from "./wire.ts";

export const Pool = Schema.Struct({
  pool_id: Schema.String,
  hex: Schema.String,
  vrf_key: Schema.String,
  blocks_minted: Schema.Int,
  blocks_epoch: Schema.Int,
  live_stake: BfQuantity,
  live_size: Schema.Number,
  live_saturation: Schema.Number,
  live_delegators: Schema.Number,
  active_stake: BfQuantity,
  active_size: Schema.Number,
  declared_pledge: BfQuantity,
  live_pledge: BfQuantity,
  margin_cost: Schema.Number,
  fixed_cost: BfQuantity,
  reward_account: Schema.String,
  owners: Schema.Array(Schema.String),
  registration: Schema.Array(Schema.String),
  retirement: Schema.Array(Schema.String),
  /** Calidus keys (CIP-151) are not read from the chain: null. */
  calidus_key: Schema.Null,
}).annotations({ identifier: "BlockfrostPool" });

const DRepMetadata = Schema.Struct({
  url: Schema.String,
  hash: Schema.String,
  json_metadata: Schema.Unknown,
  bytes: Schema.NullOr(Schema.String),
});

export const DRepListItem = Schema.Struct({
  drep_id: Schema.String,
  hex: Schema.String,
  amount: BfQuantity,
  has_script: Schema.Boolean,
  retired: Schema.Boolean,
  expired: Schema.Boolean,
  last_active_epoch: Schema.NullOr(Schema.Int),
  metadata: Schema.NullOr(DRepMetadata),
});

export const DRep = Schema.Struct({
  drep_id: Schema.String,
  hex: Schema.String,
  amount: BfQuantity,
  active: Schema.Boolean,
  active_epoch: Schema.NullOr(Schema.Int),
  has_script: Schema.Boolean,
  retired: Schema.Boolean,
  expired: Schema.Boolean,
  last_active_epoch: Schema.NullOr(Schema.Int),
}).annotations({ identifier: "BlockfrostDRep" });

const summary = (text: string) => OpenApi.annotations({ summary: text });

export const pool = HttpApiEndpoint.get("pool", "/pools/:pool_id")
  .setPath(Schema.Struct({ pool_id: Schema.String }))
  .addSuccess(Pool)
  .annotateContext(summary("A stake pool by bech32 or hex id: parameters, stake, blocks, certificates"));

export const dreps = HttpApiEndpoint.get("dreps", "/governance/dreps")
  .setUrlParams(BfPaging)
  .addSuccess(Schema.Array(DRepListItem).annotations({ identifier: "BlockfrostDReps" }))
  .annotateContext(summary("The DReps that ever registered, in registration order"));

export const drep = HttpApiEndpoint.get("drep", "/governance/dreps/:drep_id")
  .setPath(Schema.Struct({ drep_id: Schema.String }))
  .addSuccess(DRep)
  .annotateContext(summary("A DRep by CIP-129 or CIP-105 bech32 id, or hex"));

export class PoolsGroup extends HttpApiGroup.make("pools")
  .add(pool)
  .add(dreps)
  .add(drep)
  .annotateContext(OpenApi.annotations({ description: "Stake pools and governance (DReps)" })) {}
