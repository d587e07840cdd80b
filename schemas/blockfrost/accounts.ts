/**
 * The Blockfrost dialect's accounts endpoints (stake accounts and native assets), paths relative to a network's
 * base URL (./api.ts), answers in Blockfrost's published shapes (`account_content`, `account_addresses_content`,
 * `asset`, `asset_addresses`, `asset_policy`).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint";
import * as HttpApiGroup from "@effect/platform/HttpApiGroup";
import * as OpenApi from "@effect/platform/OpenApi";
import { Schema } from "effect";
import { BfPaging, BfQuantity } from "./wire.ts";

export const AccountContent = Schema.Struct({
  stake_address: Schema.String,
  /** Delegated to a pool now (Blockfrost's `active`); `registered` is the registration state. */
  active: Schema.Boolean,
  registered: Schema.Boolean,
  /** The epoch of the latest registration or deregistration. */
  active_epoch: Schema.NullOr(Schema.Int),
  /** Unspent outputs plus withdrawable rewards. */
  controlled_amount: BfQuantity,
  rewards_sum: BfQuantity,
  withdrawals_sum: BfQuantity,
  reserves_sum: BfQuantity,
  treasury_sum: BfQuantity,
  withdrawable_amount: BfQuantity,
  pool_id: Schema.NullOr(Schema.String),
  drep_id: Schema.NullOr(Schema.String),
}).annotations({ identifier: "BlockfrostAccountContent" });

export const AccountAddresses = Schema.Array(Schema.Struct({ address: Schema.String }))
  .annotations({ identifier: "BlockfrostAccountAddresses" });

export const Asset = Schema.Struct({
  asset: Schema.String,
  policy_id: Schema.String,
  asset_name: Schema.NullOr(Schema.String),
  fingerprint: Schema.String,
  quantity: BfQuantity,
  initial_mint_tx_hash: Schema.String,
  mint_or_burn_count: Schema.Int,
  onchain_metadata: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  onchain_metadata_standard: Schema.NullOr(
    Schema.Literal("CIP25v1", "CIP25v2", "CIP68v1", "CIP68v2", "CIP68v3"),
  ),
  onchain_metadata_extra: Schema.NullOr(Schema.String),
  /** The off-chain token registry's entry: not served (null). */
  metadata: Schema.Null,
}).annotations({ identifier: "BlockfrostAsset" });

export const AssetAddresses = Schema.Array(Schema.Struct({ address: Schema.String, quantity: BfQuantity }))
  .annotations({ identifier: "BlockfrostAssetAddresses" });

export const PolicyAssets = Schema.Array(Schema.Struct({ asset: Schema.String, quantity: BfQuantity }))
  .annotations({ identifier: "BlockfrostAssetPolicy" });

const summary = (text: string) => OpenApi.annotations({ summary: text });

export const account = HttpApiEndpoint.get("account", "/accounts/:stake_address")
  .setPath(Schema.Struct({ stake_address: Schema.String }))
  .addSuccess(AccountContent)
  .annotateContext(summary("A stake account: registration, delegation, balances and reward sums"));

export const accountAddresses = HttpApiEndpoint.get("accountAddresses", "/accounts/:stake_address/addresses")
  .setPath(Schema.Struct({ stake_address: Schema.String }))
  .setUrlParams(BfPaging)
  .addSuccess(AccountAddresses)
  .annotateContext(summary("The addresses that carry this stake credential, by first appearance"));

export const asset = HttpApiEndpoint.get("asset", "/assets/:asset")
  .setPath(Schema.Struct({ asset: Schema.String }))
  .addSuccess(Asset)
  .annotateContext(summary("A native asset: supply, first mint and CIP-25 on-chain metadata"));

export const assetAddresses = HttpApiEndpoint.get("assetAddresses", "/assets/:asset/addresses")
  .setPath(Schema.Struct({ asset: Schema.String }))
  .setUrlParams(BfPaging)
  .addSuccess(AssetAddresses)
  .annotateContext(summary("The addresses holding an asset now, with their quantities"));

export const policyAssets = HttpApiEndpoint.get("policyAssets", "/assets/policy/:policy_id")
  .setPath(Schema.Struct({ policy_id: Schema.String }))
  .setUrlParams(BfPaging)
  .addSuccess(PolicyAssets)
  .annotateContext(summary("The assets of a minting policy with supply, in minting order"));

export class AccountsGroup extends HttpApiGroup.make("accounts")
  .add(account)
  .add(accountAddresses)
  .add(policyAssets)
  .add(asset)
  .add(assetAddresses)
  .annotateContext(OpenApi.annotations({ description: "Stake accounts and assets" })) {}
