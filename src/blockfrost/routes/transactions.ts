/**
 * The Blockfrost dialect's transactions routes (schemas/blockfrost/transactions.ts): a transaction's content,
 * UTxOs, metadata and redeemers from one cached read of it (src/programs/transaction_detail.ts), its CBOR where
 * db-sync kept it, and submission (../tx_submit.ts).
 */
import { Effect } from "effect";
import * as txs from "@schemas/blockfrost/transactions.ts";
import type { Route } from "@src/http/route.ts";
import { transactionCborOf, transactionDetail } from "@src/programs/transaction_detail.ts";
import { keptWithTheValue } from "@src/http/kept_answer.ts";
import { serveBlockfrost } from "../endpoint.ts";
import {
  txContent,
  txContentMetadata,
  txContentMetadataCbor,
  txContentRedeemers,
  txContentUtxo,
} from "../transaction_encoders.ts";
import { txSubmitRoutes } from "../tx_submit.ts";

/** Until the next block at most (the answers say whether outputs are spent). */
const untilNextBlock = () => ({ "cache-control": "public, max-age=1" });
/** A transaction's detail is cached at the tip (transaction_detail.ts): each route keeps its answers encoded with it. */
const detailOptions = () => ({ headers: untilNextBlock, perTip: keptWithTheValue() });

const detailOf = (network: Parameters<typeof transactionDetail>[0], hash: string) =>
  transactionDetail(network, hash.toLowerCase());

export const transactionsRoutes: ReadonlyArray<Route> = [
  ...serveBlockfrost(
    txs.tx,
    ({ network, path }) => Effect.map(detailOf(network, path.hash), txContent),
    detailOptions(),
  ),
  ...serveBlockfrost(
    txs.txUtxos,
    ({ network, path }) => Effect.map(detailOf(network, path.hash), txContentUtxo),
    detailOptions(),
  ),
  ...serveBlockfrost(
    txs.txCbor,
    ({ network, path }) =>
      Effect.map(transactionCborOf(network, path.hash.toLowerCase()), (cbor) => ({ cbor })),
    { headers: () => ({ "cache-control": "public, max-age=60" }) },
  ),
  ...serveBlockfrost(
    txs.txMetadata,
    ({ network, path }) => Effect.map(detailOf(network, path.hash), txContentMetadata),
    detailOptions(),
  ),
  ...serveBlockfrost(
    txs.txMetadataCbor,
    ({ network, path }) => Effect.map(detailOf(network, path.hash), txContentMetadataCbor),
    detailOptions(),
  ),
  ...serveBlockfrost(
    txs.txRedeemers,
    ({ network, path }) => Effect.map(detailOf(network, path.hash), txContentRedeemers),
    detailOptions(),
  ),
  ...txSubmitRoutes,
];
