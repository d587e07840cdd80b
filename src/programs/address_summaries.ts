/**
 * An address's summary (src/queries/address_summary.ts), kept per address in the Cache and brought up to date
 * from what new blocks changed, so an exchange address with 100k+ UTxOs costs its full history once, then
 * milliseconds. A summary older than `recomputeAfterMillis` is recomputed rather than updated: the update reads
 * all of the chain's activity since its watermark, which after long enough outgrows the full read.
 * Used by the explorer's address endpoints and by stake-account (a stake address's unspent outputs).
 */
import { Effect, Option } from "effect";
import { Cache } from "@layers/cache.ts";
import type { ChainDatabase } from "@layers/chain_db.ts";
import type { DecodedAddress } from "@src/domain/cardano_ids.ts";
import type { DatabaseUnavailable } from "@src/domain/errors.ts";
import { type AddressSummary, addressSummary, addressSummarySince } from "@src/queries/address_summary.ts";
import { fromSql } from "@src/rest/endpoint.ts";

const recomputeAfterMillis = 30 * 60_000;

export const summaryOf = (db: ChainDatabase, address: DecodedAddress) =>
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
