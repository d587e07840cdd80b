/**
 * Unspent outputs for the Ogmios `queryLedgerState/utxo` query: by addresses (hash index on tx_out.address) or by
 * output references (unique (tx hash), then (tx_id, index)), with tokens, datum and reference script in one
 * statement. Spent-ness follows the database's mode: tx_in in db-sync's default mode, consumed_by_tx_id otherwise.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import type { Effect } from "effect";
import type { SpentTracking } from "@src/dbsync/detect.ts";

export interface UtxoRow {
  readonly txHash: string;
  readonly index: number;
  readonly address: string;
  readonly value: string;
  readonly dataHash: string | null;
  readonly inlineDatum: string | null;
  readonly scriptType: string | null;
  readonly scriptJson: unknown;
  readonly scriptBytes: string | null;
  readonly assets: ReadonlyArray<{ policy: string; name: string; quantity: string }> | null;
}

export type UtxoFilter =
  | { readonly addresses: ReadonlyArray<string> }
  | { readonly references: ReadonlyArray<{ readonly txHash: string; readonly index: number }> };

export const unspentOutputs = (
  sql: SqlClient,
  filter: UtxoFilter,
  spent: SpentTracking,
): Effect.Effect<ReadonlyArray<UtxoRow>, SqlError> => {
  const where = "addresses" in filter
    ? sql`o.address = any(${filter.addresses as Array<string>})`
    : sql`(t.hash, o.index) in (select decode(r.h, 'hex'), r.i::smallint
            from unnest(${filter.references.map((r) => r.txHash)}::text[], ${
      filter.references.map((r) => r.index)
    }::int[])
            as r(h, i))`;
  const unspent = spent === "enable"
    ? sql`not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)`
    : sql`o.consumed_by_tx_id is null`;
  return sql<UtxoRow>`
    select encode(t.hash, 'hex') as "txHash", o.index, o.address, o.value::text as value,
           encode(o.data_hash, 'hex') as "dataHash", encode(d.bytes, 'hex') as "inlineDatum",
           s.type::text as "scriptType", s.json as "scriptJson", encode(s.bytes, 'hex') as "scriptBytes",
           (select json_agg(json_build_object('policy', encode(m.policy, 'hex'), 'name', encode(m.name, 'hex'),
                   'quantity', mo.quantity::text) order by mo.id)
            from ma_tx_out mo join multi_asset m on m.id = mo.ident where mo.tx_out_id = o.id) as assets
    from tx_out o join tx t on t.id = o.tx_id
    left join datum d on d.id = o.inline_datum_id
    left join script s on s.id = o.reference_script_id
    where ${where} and ${unspent}
    order by o.id`;
};
