/** Blockfrost's `account_content` and `asset` from the programs' stake account and asset. */
import type { AccountContent, Asset } from "@schemas/blockfrost/accounts.ts";
import type { Cip25Metadata } from "@src/domain/cip25.ts";
import { unitOf } from "./amounts.ts";

export interface StakeAccountValue {
  readonly stakeAddress: string;
  readonly registered: boolean;
  readonly delegatedPoolId: string | null;
  readonly rewardsBalance: string;
  readonly totalStake: string;
  readonly activeEpoch: number | null;
  readonly rewardsSum: string;
  readonly withdrawalsSum: string;
  readonly reservesSum: string;
  readonly treasurySum: string;
  readonly drepId: string | null;
}

export const encodeAccount = (a: StakeAccountValue): typeof AccountContent.Type => ({
  stake_address: a.stakeAddress,
  active: a.delegatedPoolId !== null,
  registered: a.registered,
  active_epoch: a.activeEpoch,
  controlled_amount: a.totalStake,
  rewards_sum: a.rewardsSum,
  withdrawals_sum: a.withdrawalsSum,
  reserves_sum: a.reservesSum,
  treasury_sum: a.treasurySum,
  withdrawable_amount: a.rewardsBalance,
  pool_id: a.delegatedPoolId,
  drep_id: a.drepId,
});

export interface AssetValue {
  readonly policyId: string;
  readonly assetNameHex: string;
  readonly fingerprint: string;
  readonly quantity: string;
  readonly initialMintTxHash: string;
  readonly mintOrBurnCount: number;
  readonly cip25: Cip25Metadata | null;
}

export const encodeAsset = (a: AssetValue): typeof Asset.Type => ({
  asset: unitOf(a),
  policy_id: a.policyId,
  asset_name: a.assetNameHex === "" ? null : a.assetNameHex,
  fingerprint: a.fingerprint,
  quantity: a.quantity,
  initial_mint_tx_hash: a.initialMintTxHash,
  mint_or_burn_count: a.mintOrBurnCount,
  onchain_metadata: a.cip25?.metadata ?? null,
  onchain_metadata_standard: a.cip25?.standard ?? null,
  onchain_metadata_extra: null,
  metadata: null,
});
