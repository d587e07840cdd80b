/**
 * The REST lookups benched with keys never asked before (so the service computes each answer afresh rather than
 * from its per-tip cache): the path of each key, and the query functions the endpoint runs for it (the direct
 * SQL baseline of scripts/bench_rest.ts). Shared by bench_rest (its "N different" rows) and bench_scaling (the
 * same rows on databases of several sizes).
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import { Effect } from "effect";
import type pg from "pg";
import { txConfirmation } from "@src/queries/tx_status.ts";
import { blockById, recentBlocks } from "@src/queries/blocks.ts";
import { tipPosition } from "@src/queries/network_stats.ts";
import { poolInfo } from "@src/queries/pool.ts";
import { stakeAccount, stakeAccountInFull } from "@src/queries/stake_account.ts";
import { transactionByHash, transactionDetailByHash } from "@src/queries/transaction.ts";
import { addressUtxoWalk } from "@src/queries/address.ts";
import { addressSummary } from "@src/queries/address_summary.ts";
import { decodeAddress } from "@src/domain/cardano_ids.ts";
import { randomKeys } from "./chain_keys.ts";

/** The benched databases track spending with tx_in (db-sync's default). */
export const spentTracking = "enable" as const;

/** The options the address queries take for a mainnet address, as the service derives them. */
export const addressOptions = (address: string) => {
  const d = decodeAddress(address, "mainnet");
  if (!d.ok) throw new Error(`${address}: ${d.reason}`);
  return { paymentCredHex: d.value.paymentCred, spentTracking };
};

/** What a key is: pool and stake keys are "bech32 hex" (the view for the path, the raw hash for the query). */
export type KeyKind = "tx" | "block" | "pool" | "stake" | "address" | "page";

export interface FreshLookup {
  /** Its row's name for `count` keys ("explorer tx, 20k different"). */
  readonly name: (count: number) => string;
  readonly kind: KeyKind;
  readonly path: (key: string) => string;
  /** The endpoint's own query functions for the key. */
  readonly direct: (sql: SqlClient, key: string) => Effect.Effect<unknown, unknown>;
}

/** 20000 -> "20k". */
const thousands = (n: number) => n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);
const different = (what: string, suffix = "") => (n: number) => `${what}, ${thousands(n)} different${suffix}`;
const view = (key: string) => key.split(" ")[0]!;
const hex = (key: string) => key.split(" ")[1]!;

/**
 * What the service runs first for a stake account it has no summary of (layers/address_summaries.ts): the stake
 * address's summary, whose balance the account statement then takes instead of summing the outputs itself.
 */
const stakeBalance = (s: SqlClient, key: string) =>
  Effect.map(
    addressSummary(s, view(key), { paymentCredHex: null, spentTracking }),
    (summary) => summary?.balance ?? "0",
  );

export const freshLookups: ReadonlyArray<FreshLookup> = [
  {
    name: different("tx-status"),
    kind: "tx",
    path: (h) => `/api/public/tx-status?txHash=${h}`,
    direct: (s, h) => txConfirmation(s, h),
  },
  {
    name: different("explorer tx"),
    kind: "tx",
    path: (h) => `/v2/explorer/mainnet/tx/${h}`,
    direct: (s, h) => transactionByHash(s, h, spentTracking),
  },
  {
    name: different("explorer block by hash"),
    kind: "block",
    path: (h) => `/v2/explorer/mainnet/block/${h}`,
    direct: (s, h) => blockById(s, { hash: h }),
  },
  {
    name: (n) => `explorer blocks, pages 1-${n}`,
    kind: "page",
    path: (p) => `/v2/explorer/mainnet/blocks?page=${p}&limit=25`,
    direct: (s, p) => recentBlocks(s, { page: Number(p), limit: 25 }),
  },
  {
    name: different("explorer pool"),
    kind: "pool",
    path: (p) => `/v2/explorer/mainnet/pool/${view(p)}`,
    // lifetime rewards are cached per epoch by the service; the per-request work is the pool statement
    direct: (s, p) => Effect.zip(poolInfo(s, hex(p)), tipPosition(s)),
  },
  {
    name: different("stake-account"),
    kind: "stake",
    path: (k) => `/api/public/stake-account?address=${view(k)}`,
    direct: (s, k) => Effect.flatMap(stakeBalance(s, k), (b) => stakeAccount(s, hex(k), spentTracking, b)),
  },
  {
    name: different("explorer address", " (first request: full summary)"),
    kind: "address",
    path: (a) => `/v2/explorer/mainnet/address/${a}`,
    direct: (s, a) => addressSummary(s, a, addressOptions(a)),
  },
  // the Blockfrost dialect over the same queries (the providers' calls)
  {
    name: different("blockfrost txs/{hash}"),
    kind: "tx",
    path: (h) => `/api/v0/txs/${h}`,
    direct: (s, h) => transactionDetailByHash(s, h, spentTracking),
  },
  {
    name: different("blockfrost txs/{hash}/utxos"),
    kind: "tx",
    path: (h) => `/api/v0/txs/${h}/utxos`,
    direct: (s, h) => transactionDetailByHash(s, h, spentTracking),
  },
  {
    name: different("blockfrost blocks/{hash}"),
    kind: "block",
    path: (h) => `/api/v0/blocks/${h}`,
    direct: (s, h) => blockById(s, { hash: h }),
  },
  {
    name: different("blockfrost addresses/{a}/utxos"),
    kind: "address",
    path: (a) => `/api/v0/addresses/${a}/utxos`,
    direct: (s, a) => addressUtxoWalk(s, a, { ...addressOptions(a), page: 1, limit: 100 }),
  },
  {
    name: different("blockfrost accounts/{stake}"),
    kind: "stake",
    path: (k) => `/api/v0/accounts/${view(k)}`,
    direct: (s, k) =>
      Effect.flatMap(stakeBalance(s, k), (b) => stakeAccountInFull(s, hex(k), spentTracking, b)),
  },
];

/**
 * `count` keys of a kind, at random over the whole chain (pages: 1 to `count` in order; pools: every pool, at
 * most `count`). Blocks with a number only (the genesis pseudo-block and Byron boundary blocks have no page);
 * addresses with a payment credential (what `addressOptions` reads).
 */
export const keysOf = (client: pg.Client, kind: KeyKind, count: number): Promise<Array<string>> => {
  switch (kind) {
    case "tx":
      return randomKeys(client, "tx", "encode(hash, 'hex')", count);
    case "block":
      return randomKeys(client, "block", "encode(hash, 'hex')", count, "block_no is not null");
    case "pool":
      return randomKeys(client, "pool_hash", "view || ' ' || encode(hash_raw, 'hex')", count);
    case "stake":
      return randomKeys(client, "stake_address", "view || ' ' || encode(hash_raw, 'hex')", count);
    case "address":
      return randomKeys(client, "tx_out", "address", count, "payment_cred is not null");
    case "page":
      return Promise.resolve(Array.from({ length: count }, (_, i) => String(i + 1)));
  }
};
