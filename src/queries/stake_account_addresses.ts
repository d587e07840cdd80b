/**
 * The addresses carrying a stake credential (tx_out.stake_address_id, idx_tx_out_stake_address_id), each once,
 * in the order they first received an output, a page at a time. `known` is false when db-sync has no
 * stake_address row for the account (never seen on chain).
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import type { PageOptions } from "./page_options.ts";

export interface StakeAccountAddresses {
  readonly known: boolean;
  readonly addresses: ReadonlyArray<string>;
}

export const stakeAccountAddresses = (
  sql: SqlClient,
  hashRawHex: string,
  page: PageOptions,
): Effect.Effect<StakeAccountAddresses, SqlError> =>
  Effect.map(
    sql<{ known: boolean; address: string | null }>`
      with acct as (select id from stake_address where hash_raw = decode(${hashRawHex}, 'hex'))
      select exists (select 1 from acct) as known, a.address
      from (select 1) one
      left join lateral (
        select o.address, min(o.id) as first from tx_out o
        where o.stake_address_id = (select id from acct)
        group by o.address
        order by ${page.order === "desc" ? sql`min(o.id) desc` : sql`min(o.id)`}
        limit ${page.count} offset ${(page.page - 1) * page.count}) a on true
      order by ${page.order === "desc" ? sql`a.first desc` : sql`a.first`}`,
    (rows) => ({
      known: rows[0]?.known ?? false,
      addresses: rows.flatMap((r) => (r.address === null ? [] : [r.address])),
    }),
  );
