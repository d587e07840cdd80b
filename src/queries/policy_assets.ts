/**
 * The assets of a minting policy (multi_asset by policy: the leading column of its unique index) whose supply
 * (the sum of their mints and burns) is above zero, in the order db-sync first saw them, a page at a time.
 * `known` is false when no asset of the policy was ever minted.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import type { PageOptions } from "./page_options.ts";

export interface PolicyAssets {
  readonly known: boolean;
  readonly assets: ReadonlyArray<{ readonly assetNameHex: string; readonly quantity: string }>;
}

export const policyAssets = (
  sql: SqlClient,
  policyHex: string,
  page: PageOptions,
): Effect.Effect<PolicyAssets, SqlError> =>
  Effect.map(
    sql<{ known: boolean; assetNameHex: string | null; quantity: string | null }>`
      select exists (select 1 from multi_asset where policy = decode(${policyHex}, 'hex')) as known,
             a."assetNameHex", a.quantity
      from (select 1) one
      left join lateral (
        select m.id, encode(m.name, 'hex') as "assetNameHex", sum(mint.quantity)::text as quantity
        from multi_asset m join ma_tx_mint mint on mint.ident = m.id
        where m.policy = decode(${policyHex}, 'hex')
        group by m.id
        having sum(mint.quantity) > 0
        order by ${page.order === "desc" ? sql`m.id desc` : sql`m.id`}
        limit ${page.count} offset ${(page.page - 1) * page.count}) a on true
      order by ${page.order === "desc" ? sql`a.id desc` : sql`a.id`}`,
    (rows) => ({
      known: rows[0]?.known ?? false,
      assets: rows.flatMap((r) =>
        r.assetNameHex === null || r.quantity === null
          ? []
          : [{ assetNameHex: r.assetNameHex, quantity: r.quantity }]
      ),
    }),
  );
