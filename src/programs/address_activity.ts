/**
 * An address's holdings, unspent outputs and transactions as Blockfrost-style clients page through them
 * (src/blockfrost/routes/addresses.ts): the holdings from the address's kept summary (layers/address_summaries.ts,
 * the explorer's `address` reads the same one), pages of outputs and transactions once per block (./at_tip.ts).
 * Outputs may also be asked for by payment credential (`addr_vkh1…`, `script1…`): every output paid to it. An
 * address (or credential) never paid on this network is a NotFoundError; a stake address is no address here.
 */
import { Effect } from "effect";
import { AddressSummaries } from "@layers/address_summaries.ts";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import {
  decodeAddress,
  type DecodedAddress,
  decodePaymentCredential,
  isPaymentCredentialText,
} from "@src/domain/cardano_ids.ts";
import { decodedOr, fromSql, InvalidParameter, NotFoundError } from "@src/domain/errors.ts";
import { type AddressInfo, addressSeen, type AddressUtxo, addressUtxoWalk } from "@src/queries/address.ts";
import {
  type AddressTransaction,
  addressTransactions,
  type BlockPosition,
} from "@src/queries/address_transactions.ts";
import { addressInfoOf } from "@src/queries/address_summary.ts";
import { assetsByIds } from "@src/queries/multi_assets.ts";
import type { PageOptions } from "@src/queries/page_options.ts";
import { atTip } from "./at_tip.ts";

export interface AddressHoldings extends AddressInfo {
  /** Every asset the address's unspent outputs hold, with the quantity (decimal), in asset id order. */
  readonly tokens: ReadonlyArray<
    { readonly policyId: string; readonly assetNameHex: string; readonly quantity: string }
  >;
}

/** What outputs are asked for: an address, or every output paid to a payment credential. */
interface Target {
  readonly text: string;
  readonly paymentCred: string | null;
  readonly wholeCredential: boolean;
}

const paymentAddress = (network: Network, text: string) =>
  Effect.flatMap(
    decodedOr("address", decodeAddress(text, network)),
    (a: DecodedAddress) =>
      a.type === "reward"
        ? Effect.fail(
          new InvalidParameter({
            parameter: "address",
            reason: "is a stake address; its account is under /accounts",
          }),
        )
        : Effect.succeed(a),
  );

const targetOf = (network: Network, text: string, credentials: boolean) =>
  credentials && isPaymentCredentialText(text)
    ? Effect.map(
      decodedOr("address", decodePaymentCredential(text)),
      (c): Target => ({ text: text.toLowerCase(), paymentCred: c.hash, wholeCredential: true }),
    )
    : Effect.map(
      paymentAddress(network, text),
      (a): Target => ({ text: a.text, paymentCred: a.paymentCred, wholeCredential: false }),
    );

const neverSeen = (network: Network, text: string) =>
  new NotFoundError({ message: `Address ${text} has no activity on ${network}` });

/** The address's summary (the explorer's AddressInfo) and the assets it holds. */
export const addressHoldings = Effect.fnUntraced(function* (network: Network, text: string) {
  const target = yield* paymentAddress(network, text);
  const summary = yield* (yield* AddressSummaries).get(network, target);
  const info = addressInfoOf(summary);
  if (!info || !summary) return yield* neverSeen(network, text);
  const quantities = summary.tokenQuantities;
  const ids = Object.keys(quantities);
  const db = (yield* ChainDatabases).get(network);
  const assets = ids.length === 0
    ? []
    : yield* assetsByIds(db.sql, ids).pipe(Effect.mapError(fromSql(network)));
  const holdings: AddressHoldings = {
    ...info,
    tokens: assets.map((a) => ({
      policyId: a.policyId,
      assetNameHex: a.assetNameHex,
      quantity: quantities[a.id]!,
    })),
  };
  return holdings;
});

/** A page of the address's (or credential's) unspent outputs, optionally only those holding `asset`. */
export const addressUtxoPage = Effect.fnUntraced(
  function* (
    network: Network,
    text: string,
    paging: PageOptions,
    asset?: { readonly policyHex: string; readonly nameHex: string },
  ) {
    const target = yield* targetOf(network, text, true);
    const db = (yield* ChainDatabases).get(network);
    const options = {
      paymentCredHex: target.paymentCred,
      wholeCredential: target.wholeCredential,
      spentTracking: db.dbSync.spentTracking,
      page: paging.page,
      limit: paging.count,
      order: paging.order,
      ...(asset ? { asset } : {}),
    };
    const key = `bf-utxos:${target.text}:${paging.page}:${paging.count}:${paging.order}:${
      asset ? asset.policyHex + asset.nameHex : ""
    }`;
    const walk = yield* atTip(network, key, addressUtxoWalk(db.sql, target.text, options)).pipe(
      Effect.mapError(fromSql(network)),
    );
    if (walk.data.length === 0) yield* seenOr404(network, target);
    const utxos: ReadonlyArray<AddressUtxo> = walk.data;
    return utxos;
  },
);

const seenOr404 = (network: Network, target: Target) =>
  Effect.gen(function* () {
    const db = (yield* ChainDatabases).get(network);
    const seen = yield* addressSeen(db.sql, target.text, {
      paymentCredHex: target.paymentCred,
      wholeCredential: target.wholeCredential,
    }).pipe(Effect.mapError(fromSql(network)));
    if (!seen) return yield* neverSeen(network, target.text);
  });

/** A page of the transactions paying the address or spending its outputs, between optional block positions. */
export const addressTransactionPage = Effect.fnUntraced(
  function* (
    network: Network,
    text: string,
    paging: PageOptions,
    bounds: { readonly from?: BlockPosition; readonly to?: BlockPosition } = {},
  ) {
    const target = yield* targetOf(network, text, false);
    const db = (yield* ChainDatabases).get(network);
    const position = (p?: BlockPosition) => (p ? `${p.blockNo}:${p.index ?? ""}` : "");
    const page = yield* atTip(
      network,
      `bf-txs:${target.text}:${paging.page}:${paging.count}:${paging.order}:${position(bounds.from)}:${
        position(bounds.to)
      }`,
      addressTransactions(db.sql, target.text, {
        paymentCredHex: target.paymentCred,
        spentTracking: db.dbSync.spentTracking,
        page: paging.page,
        limit: paging.count,
        order: paging.order,
        ...bounds,
      }),
    ).pipe(Effect.mapError(fromSql(network)));
    if (page.length === 0) yield* seenOr404(network, target);
    const transactions: ReadonlyArray<AddressTransaction> = page;
    return transactions;
  },
);
