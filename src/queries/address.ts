/**
 * Address detail and unspent outputs for the explorer (spec: AddressInfo, AddressUtxo; shared/notes/dbsync.md
 * §4-5). Which outputs belong to the address:
 * - Shelley payment addresses: `payment_cred = <credential> AND address = <text>` (db-sync's
 *   idx_tx_out_payment_cred and/or our hash index idx_cds_tx_out_address, as the planner prefers). Taking the
 *   two as independent, the planner expects few rows and probes tx_in per output; on the address alone it
 *   would, for a very busy address, hash-join all of tx_in instead (a scan that grows with the chain).
 * - Byron addresses (no payment credential): the hash index idx_cds_tx_out_address.
 * - Reward (stake) addresses: the outputs of every address carrying that stake credential
 *   (idx_tx_out_stake_address_id).
 * Unspent: no tx_in spends the output (db-sync's default "enable" mode) or consumed_by_tx_id is NULL (the
 * consumed/prune/bootstrap modes); `spentTracking` is DbSyncInfo.spentTracking.
 *
 * Pages of UTxOs are in output order (tx_out.id, oldest first). For payment addresses they walk our index
 * idx_cds_tx_out_payment_cred_id (payment_cred, id) from the start, a growing step at a time, testing each
 * output for spent-ness, and stop once the page is full: page 1 of the busiest test address (443k UTxOs) takes
 * 2 ms, page 100 8 ms; an address whose old outputs are all spent walks those first (65k outputs, 43k spent:
 * 55 ms). Byron and reward addresses sort their outputs by id at each step instead, in proportion to the
 * address's outputs (the stake key behind 443k outputs: 0.4 s a page).
 *
 * Balance, UTxO count, token count and last-seen read every output ever paid to the address and probe tx_in for
 * each: for the busiest address of the 10M-output test database (443k unspent outputs) addressInfo takes about
 * 1.9 s and the UTxO count alone 1.0 s; 0.4 s for an address with 65k outputs; a few ms for ordinary ones. A
 * page needs that count for its `total`: a caller that already has it (from addressInfo, or cached per tip)
 * passes it as `total`, and the page then costs only the walk.
 */
import { bech32 } from "@scure/base";
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import type { SpentTracking } from "@src/dbsync/detect.ts";
import { assetNameText } from "@src/domain/asset_name.ts";

export type AddressType = "base" | "enterprise" | "pointer" | "reward" | "byron" | "script";

export interface AddressInfo {
  readonly address: string;
  readonly type: AddressType;
  readonly stakeAddress: string | null;
  readonly balance: string;
  readonly tokenCount: number;
  readonly utxoCount: number;
  readonly firstSeen: string | null;
  readonly lastSeen: string | null;
}

export interface Token {
  readonly policyId: string;
  readonly assetName: string;
  readonly assetNameHex: string;
  readonly quantity: string;
  readonly fingerprint: string | null;
}

export interface AddressUtxo {
  /** The output's own address (what differs between the outputs of one payment credential). */
  readonly address: string;
  readonly txHash: string;
  readonly outputIndex: number;
  readonly value: string;
  readonly tokens: ReadonlyArray<Token>;
  readonly blockNo: number;
  readonly blockHash: string;
  readonly blockTime: string;
  readonly datumHash: string | null;
  /** The inline datum's CBOR (hex). */
  readonly inlineDatum: string | null;
  readonly referenceScriptHash: string | null;
}

export interface AddressUtxoPage {
  readonly total: number;
  readonly page: number;
  readonly pageSize: number;
  readonly hasMore: boolean;
  readonly data: ReadonlyArray<AddressUtxo>;
}

export interface AddressOptions {
  /** The 28-byte payment credential (hex) of a Shelley payment address; null for Byron and reward addresses. */
  readonly paymentCredHex: string | null;
  readonly spentTracking: SpentTracking;
}

export interface AddressUtxoWalkOptions extends AddressOptions {
  /** 1-based. */
  readonly page: number;
  readonly limit: number;
  /** Oldest first (by tx_out.id, the default) or newest first. */
  readonly order?: "asc" | "desc";
  /** Only outputs holding this asset (policy id and asset name, hex). */
  readonly asset?: { readonly policyHex: string; readonly nameHex: string };
  /**
   * Every output whose payment credential is `paymentCredHex`, whatever its address (Blockfrost's `addr_vkh1…`
   * and `script1…` queries); the address text is then not read.
   */
  readonly wholeCredential?: boolean;
}

export interface AddressUtxosOptions extends AddressUtxoWalkOptions {
  /** The address's UTxO count when the caller already knows it: skips counting (see the module comment). */
  readonly total?: number;
}

/**
 * The test for "this output (alias `o`) is unspent" in a database's spent-tracking mode; without a mode, both
 * tests (right in every mode: tx_in is empty unless db-sync fills it, consumed_by_tx_id NULL unless it fills it).
 */
export const unspentOutput = (sql: SqlClient, spentTracking: SpentTracking | undefined) =>
  spentTracking === "enable"
    ? sql`not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)`
    : spentTracking === undefined
    ? sql`o.consumed_by_tx_id is null
          and not exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)`
    : sql`o.consumed_by_tx_id is null`;

const decodeBech32Bytes = (text: string): Uint8Array | undefined => {
  try {
    return bech32.fromWords(bech32.decode(text.toLowerCase() as `${string}1${string}`, 1023).words);
  } catch {
    return undefined;
  }
};

const toHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/**
 * CIP-19 type from the header byte: a script payment part makes it "script" (header nibbles 1, 3, 5, 7), else
 * 0-3 base, 4-5 pointer, 6-7 enterprise, 8 Byron, 14-15 reward; base58 text is Byron.
 */
export const addressType = (address: string): AddressType => {
  if (!/^(addr|stake)/i.test(address)) return "byron";
  const header = decodeBech32Bytes(address)?.[0];
  if (header === undefined) return /^stake/i.test(address) ? "reward" : "byron";
  const kind = header >> 4;
  if (kind >= 14) return "reward";
  if (kind === 8) return "byron";
  if (kind <= 7 && kind % 2 === 1) return "script";
  return kind <= 3 ? "base" : kind <= 5 ? "pointer" : "enterprise";
};

export type Selection =
  | { readonly kind: "payment"; readonly address: string; readonly credential: string }
  | { readonly kind: "credential"; readonly credential: string }
  | { readonly kind: "byron"; readonly address: string }
  | { readonly kind: "stake"; readonly hashRaw: string };

export const selectionOf = (
  address: string,
  paymentCredHex: string | null,
  wholeCredential = false,
): Selection | undefined => {
  if (wholeCredential) {
    return paymentCredHex === null ? undefined : { kind: "credential", credential: paymentCredHex };
  }
  if (addressType(address) === "reward") {
    const bytes = decodeBech32Bytes(address);
    return bytes ? { kind: "stake", hashRaw: toHex(bytes) } : undefined;
  }
  return paymentCredHex === null
    ? { kind: "byron", address }
    : { kind: "payment", address, credential: paymentCredHex };
};

/** The WHERE condition selecting the address's outputs (alias `o`). */
export const outputsOf = (sql: SqlClient, s: Selection) =>
  s.kind === "payment"
    ? sql`o.payment_cred = decode(${s.credential}, 'hex') and o.address = ${s.address}`
    : s.kind === "credential"
    ? sql`o.payment_cred = decode(${s.credential}, 'hex')`
    : s.kind === "byron"
    ? sql`o.address = ${s.address}`
    : sql`o.stake_address_id = (select id from stake_address where hash_raw = decode(${s.hashRaw}, 'hex'))`;

/** Enable mode: a probe per output (alias `o`) for the transaction spending it, as `s.tx_in_id`. */
export const spendingJoin = (sql: SqlClient, spentTracking: SpentTracking) =>
  spentTracking === "enable"
    ? sql`left join lateral (select i.tx_in_id from tx_in i
                             where i.tx_out_id = o.tx_id and i.tx_out_index = o.index limit 1) s on true`
    : sql``;

/** The transaction spending the output `o`, or NULL while unspent. */
export const spendingTx = (sql: SqlClient, spentTracking: SpentTracking) =>
  spentTracking === "enable" ? sql`s.tx_in_id` : sql`o.consumed_by_tx_id`;

/** Unspent outputs of the address and their count (alias `o`); the count reads all of the address's outputs. */
export const addressUtxoCount = (
  sql: SqlClient,
  address: string,
  options: AddressOptions,
): Effect.Effect<number, SqlError> => {
  const selection = selectionOf(address, options.paymentCredHex);
  if (!selection) return Effect.succeed(0);
  return Effect.map(
    sql<{ n: number }>`select count(*)::int as n from tx_out o
                       where ${outputsOf(sql, selection)} and ${unspentOutput(sql, options.spentTracking)}`,
    ([row]) => row?.n ?? 0,
  );
};

/** Largest number of outputs one step of the page walk reads. */
const maxBatch = 10_000;

interface UtxoRow {
  readonly id: string;
  readonly address: string;
  readonly txHash: string;
  readonly outputIndex: number;
  readonly value: string;
  readonly datumHash: string | null;
  readonly inlineDatum: string | null;
  readonly referenceScriptHash: string | null;
  readonly blockNo: number;
  readonly blockHash: string;
  readonly blockTime: Date;
}

interface TokenRow {
  readonly id: string;
  readonly policyId: string;
  readonly assetNameHex: string;
  readonly fingerprint: string | null;
  readonly quantity: string;
}

/** A page of unspent outputs, and whether more follow it. */
export interface AddressUtxoWalk {
  readonly hasMore: boolean;
  readonly data: ReadonlyArray<AddressUtxo>;
}

/** Beyond every tx_out id: where a newest-first walk starts. */
const lastId = "9223372036854775807";

/**
 * One page of the address's unspent outputs in output order (tx_out.id; oldest first unless `order` is desc),
 * with their tokens (one query for the page). The walk reads the address's outputs in id order in growing
 * steps, testing each for spent-ness (and, with `asset`, for holding it), until it has skipped the earlier
 * pages and filled this one (plus one to know whether more follow).
 */
export const addressUtxoWalk = (
  sql: SqlClient,
  address: string,
  options: AddressUtxoWalkOptions,
): Effect.Effect<AddressUtxoWalk, SqlError> =>
  Effect.gen(function* () {
    const { page, limit } = options;
    const selection = selectionOf(address, options.paymentCredHex, options.wholeCredential);
    if (!selection) return { hasMore: false, data: [] };
    const skip = (page - 1) * limit;
    const desc = options.order === "desc";
    const spent = options.spentTracking === "enable"
      ? sql`exists (select 1 from tx_in i where i.tx_out_id = o.tx_id and i.tx_out_index = o.index)`
      : sql`o.consumed_by_tx_id is not null`;
    // an output passed over: spent, or (with an asset) not holding it
    const passed = options.asset
      ? sql`(${spent} or not exists (
              select 1 from ma_tx_out mo join multi_asset m on m.id = mo.ident
              where mo.tx_out_id = o.id and m.policy = decode(${options.asset.policyHex}, 'hex')
                and m.name = decode(${options.asset.nameHex}, 'hex')))`
      : spent;
    const after = (cursor: string) => desc ? sql`o.id < ${cursor}` : sql`o.id > ${cursor}`;
    // A payment address's outputs are walked on idx_cds_tx_out_payment_cred_id by credential alone, in
    // (payment_cred, id) order. Written `= any(array[...])` the credential is no constant to the planner, so only
    // that index yields the order (with `=` it may walk tx_out's primary key filtering on the address: fast for
    // the busiest address, a full scan for a quiet one). Without the address in the condition the planner
    // estimates the rows well (with it, it takes credential and address as independent, expects a handful and
    // sorts them all instead: 190 ms a step for an address with 65k outputs). When most outputs of a step
    // belong to other addresses (one script credential, many stake parts), the rest is read by address (hash
    // index) and sorted. A whole credential's outputs are all "mine".
    let byCredential = selection.kind === "payment" || selection.kind === "credential";
    const step = (cursor: string, batch: number) => {
      if (byCredential && selection.kind !== "byron" && selection.kind !== "stake") {
        const mine = selection.kind === "payment" ? sql`o.address = ${selection.address}` : sql`true`;
        return sql<{ id: string; mine: boolean; spent: boolean | null }>`
            select o.id::text as id, ${mine} as mine, case when ${mine} then ${passed} end as spent
            from tx_out o
            where o.payment_cred = any(array[decode(${selection.credential}, 'hex')]) and ${after(cursor)}
            order by o.payment_cred ${desc ? sql`desc` : sql``}, o.id ${desc ? sql`desc` : sql``}
            limit ${batch}`;
      }
      return sql<{ id: string; mine: boolean; spent: boolean | null }>`
            select o.id::text as id, true as mine, ${passed} as spent from tx_out o
            where ${outputsOf(sql, selection)} and ${after(cursor)}
            order by o.id + 0 ${desc ? sql`desc` : sql``} limit ${batch}`;
    };

    const pageIds: Array<string> = [];
    let skipped = 0;
    let hasMore = false;
    let cursor = desc ? lastId : "0";
    let batch = Math.min(skip + limit + 1, maxBatch);
    for (;;) {
      const rows = yield* step(cursor, batch);
      let others = 0;
      for (const r of rows) {
        if (!r.mine) others++;
        if (!r.mine || r.spent) continue;
        if (skipped < skip) skipped++;
        else if (pageIds.length < limit) pageIds.push(r.id);
        else {
          hasMore = true;
          break;
        }
      }
      if (hasMore || rows.length < batch) break;
      if (others * 2 > rows.length) byCredential = false;
      cursor = rows[rows.length - 1]!.id;
      batch = Math.min(batch * 4, maxBatch);
    }

    if (pageIds.length === 0) return { hasMore, data: [] };
    const [utxos, tokens] = yield* Effect.all([
      sql<UtxoRow>`
        select o.id::text as id, o.address, encode(t.hash, 'hex') as "txHash", o.index as "outputIndex",
               o.value::text as value, encode(o.data_hash, 'hex') as "datumHash",
               (select encode(d.bytes, 'hex') from datum d where d.id = o.inline_datum_id) as "inlineDatum",
               (select encode(s.hash, 'hex') from script s where s.id = o.reference_script_id)
                 as "referenceScriptHash",
               b.block_no as "blockNo", encode(b.hash, 'hex') as "blockHash", b.time as "blockTime"
        from tx_out o join tx t on t.id = o.tx_id join block b on b.id = t.block_id
        where o.id = any(${pageIds}::bigint[])
        order by o.id ${desc ? sql`desc` : sql``}`,
      sql<TokenRow>`
        select mo.tx_out_id::text as id, encode(m.policy, 'hex') as "policyId",
               encode(m.name, 'hex') as "assetNameHex", m.fingerprint, mo.quantity::text as quantity
        from ma_tx_out mo join multi_asset m on m.id = mo.ident
        where mo.tx_out_id = any(${pageIds}::bigint[])
        order by mo.tx_out_id, mo.id`,
    ]);
    const byOutput = new Map<string, Array<Token>>();
    for (const t of tokens) {
      const list = byOutput.get(t.id) ?? [];
      list.push({
        policyId: t.policyId,
        assetName: assetNameText(t.assetNameHex),
        assetNameHex: t.assetNameHex,
        quantity: t.quantity,
        fingerprint: t.fingerprint,
      });
      byOutput.set(t.id, list);
    }
    return {
      hasMore,
      data: utxos.map((u) => ({
        address: u.address,
        txHash: u.txHash,
        outputIndex: u.outputIndex,
        value: u.value,
        tokens: byOutput.get(u.id) ?? [],
        blockNo: u.blockNo,
        blockHash: u.blockHash,
        blockTime: u.blockTime.toISOString(),
        datumHash: u.datumHash,
        inlineDatum: u.inlineDatum,
        referenceScriptHash: u.referenceScriptHash,
      })),
    };
  });

/** One page of the address's unspent outputs (addressUtxoWalk) with the address's UTxO count as its total. */
export const addressUtxos = (
  sql: SqlClient,
  address: string,
  options: AddressUtxosOptions,
): Effect.Effect<AddressUtxoPage, SqlError> =>
  Effect.gen(function* () {
    const { page, limit } = options;
    const walk = yield* addressUtxoWalk(sql, address, options);
    const total = options.total ?? (yield* addressUtxoCount(sql, address, options));
    return { total, page, pageSize: limit, ...walk };
  });

/**
 * Whether any output was ever paid to the address (or, with `wholeCredential`, to its payment credential):
 * one index probe. What tells an address never seen on chain (a 404) from one that holds nothing now.
 */
export const addressSeen = (
  sql: SqlClient,
  address: string,
  options: Pick<AddressUtxoWalkOptions, "paymentCredHex" | "wholeCredential">,
): Effect.Effect<boolean, SqlError> => {
  const selection = selectionOf(address, options.paymentCredHex, options.wholeCredential);
  if (!selection) return Effect.succeed(false);
  return Effect.map(
    sql<{ seen: boolean }>`select exists (select 1 from tx_out o where ${outputsOf(sql, selection)}) as seen`,
    ([row]) => row?.seen ?? false,
  );
};
