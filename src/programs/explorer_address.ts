/**
 * `GET /v2/explorer/{network}/address/{addr}` and `…/utxos`: an address's summary (balance, UTxO and token
 * counts, activity; kept current by layers/address_summaries.ts) and its unspent outputs a page at a time (each
 * page computed once per block: ./at_tip.ts).
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { decodeAddress } from "@src/domain/cardano_ids.ts";
import { addressUtxos as utxoPage } from "@src/queries/address.ts";
import { addressInfoOf } from "@src/queries/address_summary.ts";
import { AddressSummaries } from "@layers/address_summaries.ts";
import { atTip } from "./at_tip.ts";
import { decodedOr, fromSql, NotFoundError } from "@src/domain/errors.ts";

const decoded = (network: Network, addr: string) => decodedOr("addr", decodeAddress(addr, network));

export const address = Effect.fnUntraced(function* (network: Network, addr: string) {
  const target = yield* decoded(network, addr);
  const info = addressInfoOf(yield* (yield* AddressSummaries).get(network, target));
  if (!info) return yield* new NotFoundError({ message: `Address ${addr} has no activity on ${network}` });
  return info;
});

export const addressUtxos = Effect.fnUntraced(
  function* (network: Network, addr: string, page: number, limit: number) {
    const target = yield* decoded(network, addr);
    const db = (yield* ChainDatabases).get(network);
    const summary = yield* (yield* AddressSummaries).get(network, target);
    return yield* atTip(
      network,
      `utxos:${target.text}:${page}:${limit}`,
      utxoPage(db.sql, target.text, {
        paymentCredHex: target.paymentCred,
        spentTracking: db.dbSync.spentTracking,
        page,
        limit,
        total: summary?.utxos ?? 0,
      }).pipe(Effect.mapError(fromSql(network))),
    );
  },
);
