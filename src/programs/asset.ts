/**
 * Native assets (Blockfrost's `/assets/{asset}`, its holders, `/assets/policy/{policy_id}`): an asset with its
 * supply, first mint and CIP-25 metadata (src/domain/cip25.ts); who holds it now; a policy's assets with supply.
 * CIP-68 reference-datum metadata is not read (null). An asset or policy never minted is not found.
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { decodeAssetUnit, decodePolicyId } from "@src/domain/asset_unit.ts";
import { cip25Metadata } from "@src/domain/cip25.ts";
import { decodedOr, fromSql, NotFoundError } from "@src/domain/errors.ts";
import { asset as assetQuery } from "@src/queries/asset.ts";
import { assetHolders as holdersQuery } from "@src/queries/asset_holders.ts";
import type { PageOptions } from "@src/queries/page_options.ts";
import { policyAssets as policyQuery } from "@src/queries/policy_assets.ts";
import { atTip } from "./at_tip.ts";

const pageKey = (page: PageOptions) => `${page.count}:${page.page}:${page.order}`;

export const asset = Effect.fnUntraced(function* (unit: string, network: Network) {
  const { policyId, assetNameHex } = yield* decodedOr("asset", decodeAssetUnit(unit));
  const db = (yield* ChainDatabases).get(network);
  const row = yield* atTip(
    network,
    `asset:${policyId}${assetNameHex}`,
    assetQuery(db.sql, policyId, assetNameHex).pipe(Effect.mapError(fromSql(network))),
  );
  if (!row) {
    return yield* new NotFoundError({ message: `The asset ${unit} has never been minted on ${network}` });
  }
  const { label721, ...rest } = row;
  return { ...rest, cip25: cip25Metadata(label721, policyId, assetNameHex) };
});

export const assetHolders = Effect.fnUntraced(
  function* (unit: string, network: Network, page: PageOptions) {
    const { policyId, assetNameHex } = yield* decodedOr("asset", decodeAssetUnit(unit));
    const db = (yield* ChainDatabases).get(network);
    const found = yield* atTip(
      network,
      `asset-holders:${policyId}${assetNameHex}:${pageKey(page)}`,
      holdersQuery(db.sql, policyId, assetNameHex, page, db.dbSync.spentTracking).pipe(
        Effect.mapError(fromSql(network)),
      ),
    );
    if (!found.known) {
      return yield* new NotFoundError({ message: `The asset ${unit} has never been minted on ${network}` });
    }
    return found.holders;
  },
);

export const policyAssets = Effect.fnUntraced(
  function* (policy: string, network: Network, page: PageOptions) {
    const policyId = yield* decodedOr("policy_id", decodePolicyId(policy));
    const db = (yield* ChainDatabases).get(network);
    const found = yield* atTip(
      network,
      `policy-assets:${policyId}:${pageKey(page)}`,
      policyQuery(db.sql, policyId, page).pipe(Effect.mapError(fromSql(network))),
    );
    if (!found.known) {
      return yield* new NotFoundError({
        message: `No asset of policy ${policy} has been minted on ${network}`,
      });
    }
    return found.assets.map((a) => ({ policyId, ...a }));
  },
);
