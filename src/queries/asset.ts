/**
 * One native asset (multi_asset by policy and name, its unique index): its supply (the sum of its mints and burns,
 * ma_tx_mint by ident), its first minting transaction, how many mints and burns it had, and the CIP-25 label 721
 * metadata of its latest minting transaction (a mint with quantity > 0; the json as db-sync decoded it). The
 * CIP-25 entry for the asset is picked out of that by src/domain/cip25.ts.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";

export interface AssetRow {
  readonly policyId: string;
  readonly assetNameHex: string;
  readonly fingerprint: string;
  readonly quantity: string;
  readonly initialMintTxHash: string;
  readonly mintOrBurnCount: number;
  /** The whole label 721 json of the latest minting transaction, or null. */
  readonly label721: unknown;
}

export const asset = (
  sql: SqlClient,
  policyHex: string,
  nameHex: string,
): Effect.Effect<AssetRow | undefined, SqlError> =>
  Effect.map(
    sql<AssetRow>`
      with ma as (select id, policy, name, fingerprint from multi_asset
                  where policy = decode(${policyHex}, 'hex') and name = decode(${nameHex}, 'hex'))
      select encode(ma.policy, 'hex') as "policyId", encode(ma.name, 'hex') as "assetNameHex", ma.fingerprint,
             (select coalesce(sum(m.quantity), 0)::text from ma_tx_mint m where m.ident = ma.id) as quantity,
             (select encode(t.hash, 'hex') from ma_tx_mint m join tx t on t.id = m.tx_id
              where m.ident = ma.id order by m.tx_id, m.id limit 1) as "initialMintTxHash",
             (select count(*)::int from ma_tx_mint m where m.ident = ma.id) as "mintOrBurnCount",
             (select tm.json from ma_tx_mint m join tx_metadata tm on tm.tx_id = m.tx_id and tm.key = 721
              where m.ident = ma.id and m.quantity > 0 order by m.tx_id desc, tm.id desc limit 1) as "label721"
      from ma`,
    ([row]) => row,
  );
