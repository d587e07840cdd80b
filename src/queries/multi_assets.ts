/** Assets (db-sync's `multi_asset`) by their row ids, as address summaries name them (./address_summary.ts). */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import type { Effect } from "effect";

export interface AssetName {
  readonly id: string;
  readonly policyId: string;
  readonly assetNameHex: string;
}

/** The assets with these ids, in id order. */
export const assetsByIds = (
  sql: SqlClient,
  ids: ReadonlyArray<string>,
): Effect.Effect<ReadonlyArray<AssetName>, SqlError> =>
  sql<AssetName>`
    select m.id::text as id, encode(m.policy, 'hex') as "policyId", encode(m.name, 'hex') as "assetNameHex"
    from multi_asset m where m.id = any(${ids as Array<string>}::bigint[])
    order by m.id`;
