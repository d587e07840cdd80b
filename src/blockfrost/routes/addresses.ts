/** The Blockfrost dialect's addresses routes (schemas/blockfrost/addresses.ts). */
import { Effect } from "effect";
import * as addresses from "@schemas/blockfrost/addresses.ts";
import { keptWithTheValue } from "@src/http/kept_answer.ts";
import type { Route } from "@src/http/route.ts";
import { addressHoldings, addressTransactionPage, addressUtxoPage } from "@src/programs/address_activity.ts";
import type { BlockPosition } from "@src/queries/address_transactions.ts";
import { bfAddress, bfAddressTransaction, bfAddressUtxo } from "../addresses.ts";
import { serveBlockfrost } from "../endpoint.ts";

/** Answers that change with each block: a client re-asks, no cache keeps them. */
const noStore = () => ({ "cache-control": "no-store" });

/**
 * The pages of an address's UTxOs and transactions are values cached per tip (src/programs/address_activity.ts),
 * so their encoded answers are kept with them: a wallet polling its address between two blocks gets the bytes.
 */
const pageOptions = () => ({ headers: noStore, perTip: keptWithTheValue() });

/** `height` or `height:index`, as the query Schema let through. */
const position = (text: string | undefined): BlockPosition | undefined => {
  if (text === undefined) return undefined;
  const [height, index] = text.split(":");
  return index === undefined
    ? { blockNo: Number(height) }
    : { blockNo: Number(height), index: Number(index) };
};

export const addressesRoutes: ReadonlyArray<Route> = [
  ...serveBlockfrost(
    addresses.address,
    ({ path, network }) => Effect.map(addressHoldings(network, path.address), bfAddress),
    { headers: noStore },
  ),
  ...serveBlockfrost(
    addresses.addressUtxos,
    ({ path, query, network }) =>
      Effect.map(addressUtxoPage(network, path.address, query), (page) => page.map(bfAddressUtxo)),
    pageOptions(),
  ),
  ...serveBlockfrost(
    addresses.addressUtxosOfAsset,
    ({ path, query, network }) =>
      Effect.map(
        addressUtxoPage(network, path.address, query, {
          policyHex: path.asset.slice(0, 56).toLowerCase(),
          nameHex: path.asset.slice(56).toLowerCase(),
        }),
        (page) => page.map(bfAddressUtxo),
      ),
    pageOptions(),
  ),
  ...serveBlockfrost(
    addresses.addressTransactions,
    ({ path, query, network }) => {
      const from = position(query.from);
      const to = position(query.to);
      return Effect.map(
        addressTransactionPage(network, path.address, query, {
          ...(from ? { from } : {}),
          ...(to ? { to } : {}),
        }),
        (page) => page.map(bfAddressTransaction),
      );
    },
    pageOptions(),
  ),
];
