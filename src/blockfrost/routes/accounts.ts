/**
 * The Blockfrost dialect's accounts routes (schemas/blockfrost/accounts.ts): stake accounts
 * (src/programs/stake_account_content.ts) and native assets (src/programs/asset.ts), encoded by
 * ../encode_accounts.ts.
 */
import { Effect } from "effect";
import * as accounts from "@schemas/blockfrost/accounts.ts";
import type { Route } from "@src/http/route.ts";
import * as assets from "@src/programs/asset.ts";
import { stakeAccountAddresses, stakeAccountContent } from "@src/programs/stake_account_content.ts";
import { encodeAccount, encodeAsset } from "../encode_accounts.ts";
import { unitOf } from "../amounts.ts";
import { serveBlockfrost } from "../endpoint.ts";

export const accountsRoutes: ReadonlyArray<Route> = [
  ...serveBlockfrost(
    accounts.account,
    ({ path, network }) => Effect.map(stakeAccountContent(path.stake_address, network), encodeAccount),
  ),
  ...serveBlockfrost(
    accounts.accountAddresses,
    ({ path, query, network }) =>
      Effect.map(
        stakeAccountAddresses(path.stake_address, network, query),
        (addresses) => addresses.map((address) => ({ address })),
      ),
  ),
  ...serveBlockfrost(
    accounts.policyAssets,
    ({ path, query, network }) =>
      Effect.map(
        assets.policyAssets(path.policy_id, network, query),
        (list) => list.map((a) => ({ asset: unitOf(a), quantity: a.quantity })),
      ),
  ),
  ...serveBlockfrost(
    accounts.asset,
    ({ path, network }) => Effect.map(assets.asset(path.asset, network), encodeAsset),
  ),
  ...serveBlockfrost(
    accounts.assetAddresses,
    ({ path, query, network }) => assets.assetHolders(path.asset, network, query),
  ),
];
