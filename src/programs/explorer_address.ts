/**
 * `GET /v2/explorer/{network}/address/{addr}` and `…/utxos`: an address's summary (balance, UTxO and token
 * counts, activity) and its unspent outputs a page at a time. The summary is kept per address in the Cache and
 * brought up to date from what new blocks changed (src/queries/address_summary.ts), so an exchange address with
 * 100k+ UTxOs costs its full history once, then milliseconds; a summary older than `recomputeAfter` is recomputed
 * rather than updated (the update reads all of the chain's activity since, which then outgrows the full read).
 */
import { Effect, Option } from "effect";
import { Cache } from "@layers/cache.ts";
import { type ChainDatabase, ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { decodeAddress, type DecodedAddress } from "@src/domain/cardano_ids.ts";
import { addressUtxos as utxoPage } from "@src/queries/address.ts";
import {
  addressInfoOf,
  type AddressSummary,
  addressSummary,
  addressSummarySince,
} from "@src/queries/address_summary.ts";
import type { DatabaseUnavailable } from "@src/domain/errors.ts";
import { fromSql } from "@src/rest/endpoint.ts";
import { decodedOr, NotFoundError } from "@src/rest/failures.ts";

const recomputeAfterMillis = 30 * 60_000;

const summaryOf = (db: ChainDatabase, address: DecodedAddress) =>
  Effect.flatMap(Cache, (cache) => {
    const options = { paymentCredHex: address.paymentCred, spentTracking: db.dbSync.spentTracking };
    const unavailable = fromSql(db.network);
    const full = addressSummary(db.sql, address.text, options).pipe(Effect.mapError(unavailable));
    const update = (previous: AddressSummary) =>
      addressSummarySince(db.sql, previous, options).pipe(
        Effect.mapError(unavailable),
        Effect.flatMap((updated) => (updated ? Effect.succeed(updated) : full)),
      );
    return cache.refresh<AddressSummary | undefined, DatabaseUnavailable, never>(
      `address:${db.network}:${address.text}`,
      "2 seconds",
      (previous) =>
        Option.match(previous, {
          onNone: () => full,
          onSome: ({ value, ageMillis }) =>
            value === undefined || ageMillis > recomputeAfterMillis ? full : update(value),
        }),
    );
  });

const decoded = (network: Network, addr: string) => decodedOr("addr", decodeAddress(addr, network));

export const address = Effect.fn("explorer.address")(function* (network: Network, addr: string) {
  const target = yield* decoded(network, addr);
  const db = (yield* ChainDatabases).get(network);
  const info = addressInfoOf(yield* summaryOf(db, target));
  if (!info) return yield* new NotFoundError({ message: `Address ${addr} has no activity on ${network}` });
  return info;
});

export const addressUtxos = Effect.fn("explorer.addressUtxos")(
  function* (network: Network, addr: string, page: number, limit: number) {
    const target = yield* decoded(network, addr);
    const db = (yield* ChainDatabases).get(network);
    const summary = yield* summaryOf(db, target);
    return yield* utxoPage(db.sql, target.text, {
      paymentCredHex: target.paymentCred,
      spentTracking: db.dbSync.spentTracking,
      page,
      limit,
      total: summary?.utxos ?? 0,
    }).pipe(Effect.mapError(fromSql(network)));
  },
);
