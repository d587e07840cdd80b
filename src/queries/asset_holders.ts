/**
 * Who holds a native asset now: the addresses of its unspent outputs (ma_tx_out by ident, then the outputs) with
 * the quantity each holds, in the order they first received it among those outputs, a page at a time. `known`
 * is false when db-sync has no multi_asset row for it.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import type { SpentTracking } from "@src/dbsync/detect.ts";
import { unspentOutput } from "./address.ts";
import type { PageOptions } from "./page_options.ts";

export interface AssetHolders {
  readonly known: boolean;
  readonly holders: ReadonlyArray<{ readonly address: string; readonly quantity: string }>;
}

export const assetHolders = (
  sql: SqlClient,
  policyHex: string,
  nameHex: string,
  page: PageOptions,
  spentTracking?: SpentTracking,
): Effect.Effect<AssetHolders, SqlError> =>
  Effect.map(
    sql<{ known: boolean; address: string | null; quantity: string | null }>`
      with ma as (select id from multi_asset
                  where policy = decode(${policyHex}, 'hex') and name = decode(${nameHex}, 'hex'))
      select exists (select 1 from ma) as known, h.address, h.quantity
      from (select 1) one
      left join lateral (
        select o.address, sum(mo.quantity)::text as quantity, min(o.id) as first
        from ma_tx_out mo join tx_out o on o.id = mo.tx_out_id
        where mo.ident = (select id from ma) and ${unspentOutput(sql, spentTracking)}
        group by o.address
        order by ${page.order === "desc" ? sql`min(o.id) desc` : sql`min(o.id)`}
        limit ${page.count} offset ${(page.page - 1) * page.count}) h on true
      order by ${page.order === "desc" ? sql`h.first desc` : sql`h.first`}`,
    (rows) => ({
      known: rows[0]?.known ?? false,
      holders: rows.flatMap((r) =>
        r.address === null || r.quantity === null ? [] : [{ address: r.address, quantity: r.quantity }]
      ),
    }),
  );
