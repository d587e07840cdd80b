/**
 * An address's balance, UTxO count, tokens held and first/last activity (spec: AddressInfo), as a summary that
 * can be brought up to date by what new blocks changed instead of being recomputed.
 *
 * `addressSummary` reads every output ever paid to the address and probes each for spent-ness: a few ms for an
 * ordinary address, about 2 s for the busiest one of the 10M-output test database (443k unspent outputs). It
 * records a watermark in the same statement (same snapshot): the newest block, transaction and output ids.
 * `addressSummarySince` adds what happened after a watermark: outputs paid to the address with a larger output
 * id (idx_cds_tx_out_payment_cred_id for payment addresses), and the address's outputs spent by a transaction
 * with a larger id (tx_in rows by tx_in_id, db-sync's idx_tx_in_tx_in_id, then each spent output by its
 * primary key; or tx_out.consumed_by_tx_id, idx_cds_tx_out_consumed_by_tx_id, in the consumed modes). That is
 * in proportion to the chain's activity since the watermark, not to the address's history. When the
 * watermark's block is no longer on chain (a rollback), it answers undefined and the caller recomputes.
 *
 * This relies on db-sync writing each block atomically (it does when following the tip; the service never sees
 * half a block), so everything up to a watermark is final unless rolled back.
 *
 * Token counts are kept per asset (how many unspent outputs hold it, and the quantity they hold), so spending
 * the last output holding an asset removes it; tokenCount is the number of assets with a positive count.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import type { Fragment } from "@effect/sql/Statement";
import { Effect } from "effect";
import type { SpentTracking } from "@src/dbsync/detect.ts";
import {
  type AddressInfo,
  type AddressOptions,
  addressType,
  outputsOf,
  type Selection,
  selectionOf,
  spendingJoin,
  spendingTx,
} from "./address.ts";
import { prepared } from "./prepared.ts";

/** The newest block, transaction and output a summary includes. */
export interface Watermark {
  readonly blockId: string;
  readonly blockHash: string;
  readonly txId: string;
  readonly outputId: string;
}

export interface AddressSummary {
  readonly address: string;
  readonly watermark: Watermark;
  /** Outputs ever paid to the address (0 with `known`: a stake address seen only in certificates). */
  readonly outputs: number;
  readonly utxos: number;
  readonly balance: string;
  /** multi_asset id -> unspent outputs holding it. */
  readonly tokens: Readonly<Record<string, number>>;
  /** multi_asset id -> quantity held (decimal), for the same assets as `tokens`. */
  readonly tokenQuantities: Readonly<Record<string, string>>;
  /** The assets held (tokens' size, counted once here: an exchange holds tens of thousands). */
  readonly tokenCount: number;
  readonly stakeAddress: string | null;
  readonly firstSeen: string | null;
  readonly lastSeen: string | null;
  /** Whether the chain has seen the address at all (an output paid to it, or the stake address registered). */
  readonly known: boolean;
}

interface SummaryRow {
  readonly valid: boolean | null;
  readonly blockId: string | null;
  readonly blockHash: string | null;
  readonly txId: string | null;
  readonly outputId: string | null;
  readonly outputs: number;
  readonly utxos: number;
  readonly balance: string;
  readonly tokens: Record<string, number> | null;
  readonly quantities: Record<string, string> | null;
  readonly stakeAddress: string | null;
  readonly firstSeen: Date | null;
  readonly lastSeen: Date | null;
  readonly known: boolean;
}

const watermarkColumns = (sql: SqlClient) =>
  sql`(select b.id::text from block b order by b.id desc limit 1) as "blockId",
      (select encode(b.hash, 'hex') from block b order by b.id desc limit 1) as "blockHash",
      coalesce((select id from tx order by id desc limit 1), 0)::text as "txId",
      coalesce((select id from tx_out order by id desc limit 1), 0)::text as "outputId"`;

const stakeView = (sql: SqlClient, selection: Selection) =>
  selection.kind === "stake"
    ? sql`(select view from stake_address where hash_raw = decode(${selection.hashRaw}, 'hex'))`
    : sql`(select view from stake_address where id = agg.stake_id)`;

const known = (sql: SqlClient, selection: Selection) =>
  selection.kind === "stake"
    ? sql`exists (select 1 from stake_address where hash_raw = decode(${selection.hashRaw}, 'hex'))`
    : sql`agg.outputs > 0`;

const blockTime = (sql: SqlClient, txId: Fragment) =>
  sql`(select b.time from tx t join block b on b.id = t.block_id where t.id = ${txId})`;

const toSummary = (address: string, row: SummaryRow, watermark: Watermark): AddressSummary => ({
  address,
  watermark,
  outputs: row.outputs,
  utxos: row.utxos,
  balance: row.balance,
  tokens: row.tokens ?? {},
  tokenQuantities: row.quantities ?? {},
  tokenCount: Object.keys(row.tokens ?? {}).length,
  stakeAddress: row.stakeAddress,
  firstSeen: row.firstSeen?.toISOString() ?? null,
  lastSeen: row.lastSeen?.toISOString() ?? null,
  known: row.known,
});

const watermarkOf = (row: SummaryRow): Watermark => ({
  blockId: row.blockId ?? "0",
  blockHash: row.blockHash ?? "",
  txId: row.txId ?? "0",
  outputId: row.outputId ?? "0",
});

/** The address's summary from its whole history, or undefined for text that is no address of ours. */
export const addressSummary = (
  sql: SqlClient,
  address: string,
  options: AddressOptions,
): Effect.Effect<AddressSummary | undefined, SqlError> => {
  const selection = selectionOf(address, options.paymentCredHex);
  if (!selection) return Effect.succeed(undefined);
  return Effect.map(
    // a stake address's outputs are found through a subquery, so a generic plan is the one it gets anyway
    sql<SummaryRow>`${selection.kind === "stake" ? sql.literal(prepared) : sql``}
      with outs as materialized (
             select o.id, o.tx_id, o.value, o.stake_address_id, ${
      spendingTx(sql, options.spentTracking)
    } as spent_by
             from tx_out o ${spendingJoin(sql, options.spentTracking)}
             where ${outputsOf(sql, selection)}),
           agg as (select count(*) as outputs, count(*) filter (where spent_by is null) as utxos,
                          coalesce(sum(value) filter (where spent_by is null), 0) as balance,
                          min(tx_id) as first_tx, greatest(max(tx_id), max(spent_by)) as last_tx,
                          max(stake_address_id) as stake_id
                   from outs)
      select ${watermarkColumns(sql)},
             agg.outputs::int as outputs, agg.utxos::int as utxos, agg.balance::text as balance,
             held.tokens, held.quantities,
             ${stakeView(sql, selection)} as "stakeAddress",
             ${blockTime(sql, sql`agg.first_tx`)} as "firstSeen",
             ${blockTime(sql, sql`agg.last_tx`)} as "lastSeen",
             ${known(sql, selection)} as known
      from agg, lateral (
             select json_object_agg(ident::text, n) as tokens, json_object_agg(ident::text, q::text) as quantities
             from (select m.ident, count(*) as n, sum(m.quantity) as q
                   from outs u join ma_tx_out m on m.tx_out_id = u.id
                   where u.spent_by is null group by m.ident) h) held`,
    ([row]) => (row ? toSummary(address, row, watermarkOf(row)) : undefined),
  );
};

/** Outputs of the selection spent by a transaction after `txId` (alias `o`, spender as `spent_by`). */
const spentSince = (sql: SqlClient, selection: Selection, spentTracking: SpentTracking, txId: string) =>
  spentTracking === "enable"
    ? sql`select o.id, o.value, i.tx_in_id as spent_by
          from tx_in i join tx_out o on o.tx_id = i.tx_out_id and o.index = i.tx_out_index
          where i.tx_in_id > ${txId} and ${outputsOf(sql, selection)}`
    : sql`select o.id, o.value, o.consumed_by_tx_id as spent_by from tx_out o
          where o.consumed_by_tx_id > ${txId} and ${outputsOf(sql, selection)}`;

/**
 * `previous` brought up to the newest block, or undefined when its watermark block was rolled back (recompute
 * with addressSummary then).
 */
export const addressSummarySince = (
  sql: SqlClient,
  previous: AddressSummary,
  options: AddressOptions,
): Effect.Effect<AddressSummary | undefined, SqlError> => {
  const selection = selectionOf(previous.address, options.paymentCredHex);
  if (!selection) return Effect.succeed(undefined);
  const mark = previous.watermark;
  return Effect.map(
    sql<SummaryRow>`
      with paid as materialized (
             select o.id, o.tx_id, o.value, o.stake_address_id from tx_out o
             where ${outputsOf(sql, selection)} and o.id > ${mark.outputId}),
           spent as materialized (${spentSince(sql, selection, options.spentTracking, mark.txId)}),
           agg as (select (select count(*) from paid) as outputs,
                          (select count(*) from paid) - (select count(*) from spent) as utxos,
                          (select coalesce(sum(value), 0) from paid) - (select coalesce(sum(value), 0) from spent)
                            as balance,
                          (select min(tx_id) from paid) as first_tx,
                          greatest((select max(tx_id) from paid), (select max(spent_by) from spent)) as last_tx,
                          (select max(stake_address_id) from paid) as stake_id)
      select (select encode(hash, 'hex') from block where id = ${mark.blockId}) = ${mark.blockHash} as valid,
             ${watermarkColumns(sql)},
             agg.outputs::int as outputs, agg.utxos::int as utxos, agg.balance::text as balance,
             held.tokens, held.quantities,
             ${stakeView(sql, selection)} as "stakeAddress",
             ${blockTime(sql, sql`agg.first_tx`)} as "firstSeen",
             ${blockTime(sql, sql`agg.last_tx`)} as "lastSeen",
             ${known(sql, selection)} as known
      from agg, lateral (
             select json_object_agg(ident::text, n) as tokens, json_object_agg(ident::text, q::text) as quantities
             from (select ident, sum(d)::int as n, sum(d * quantity) as q from (
                     select m.ident, 1 as d, m.quantity from paid u join ma_tx_out m on m.tx_out_id = u.id
                     union all
                     select m.ident, -1 as d, m.quantity from spent u join ma_tx_out m on m.tx_out_id = u.id) changes
                   group by ident) h) held`,
    ([row]) => {
      if (!row?.valid) return undefined;
      const tokens: Record<string, number> = { ...previous.tokens };
      const tokenQuantities: Record<string, string> = { ...previous.tokenQuantities };
      for (const [ident, change] of Object.entries(row.tokens ?? {})) {
        const n = (tokens[ident] ?? 0) + change;
        const q = BigInt(tokenQuantities[ident] ?? "0") + BigInt(row.quantities?.[ident] ?? "0");
        if (n > 0) {
          tokens[ident] = n;
          tokenQuantities[ident] = q.toString();
        } else {
          delete tokens[ident];
          delete tokenQuantities[ident];
        }
      }
      return {
        address: previous.address,
        watermark: watermarkOf(row),
        outputs: previous.outputs + row.outputs,
        utxos: previous.utxos + row.utxos,
        balance: (BigInt(previous.balance) + BigInt(row.balance)).toString(),
        tokens,
        tokenQuantities,
        tokenCount: Object.keys(tokens).length,
        stakeAddress: previous.stakeAddress ?? row.stakeAddress,
        firstSeen: previous.firstSeen ?? row.firstSeen?.toISOString() ?? null,
        lastSeen: row.lastSeen?.toISOString() ?? previous.lastSeen,
        known: previous.known || row.known,
      };
    },
  );
};

/** The spec's AddressInfo of a summary; undefined when the chain has never seen the address. */
export const addressInfoOf = (summary: AddressSummary | undefined): AddressInfo | undefined =>
  summary?.known
    ? {
      address: summary.address,
      type: addressType(summary.address),
      stakeAddress: summary.stakeAddress,
      balance: summary.balance,
      tokenCount: summary.tokenCount,
      utxoCount: summary.utxos,
      firstSeen: summary.firstSeen,
      lastSeen: summary.lastSeen,
    }
    : undefined;

/** AddressInfo from the whole history (what addressSummary + addressInfoOf give). */
export const addressInfo = (
  sql: SqlClient,
  address: string,
  options: AddressOptions,
): Effect.Effect<AddressInfo | undefined, SqlError> =>
  Effect.map(addressSummary(sql, address, options), addressInfoOf);
