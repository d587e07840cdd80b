/**
 * The REST (`/api/public/*`) and explorer (`/v2/explorer/{network}/*`) routes: each binds an endpoint of
 * schemas/api.ts to its program, with the network a request concerns (read from its decoded parameters) and its
 * answer's cache headers. A newcomer finds a REST endpoint here first; `run` leads to its program.
 */
import { Effect, Either } from "effect";
import { PriceFeed } from "@layers/price_feed.ts";
import * as api from "@schemas/api.ts";
import type { Network } from "@schemas/network.ts";
import { stakeAddressNetwork } from "@src/domain/cardano_ids.ts";
import type { Route } from "@src/http/route.ts";
import { keptWithTheValue } from "@src/http/kept_answer.ts";
import { makeTipAnswers } from "@src/http/tip_answers.ts";
import * as explorer from "@src/programs/explorer.ts";
import * as explorerAddress from "@src/programs/explorer_address.ts";
import * as explorerDReps from "@src/programs/explorer_dreps.ts";
import * as explorerPool from "@src/programs/explorer_pool.ts";
import * as explorerTransaction from "@src/programs/explorer_transaction.ts";
import { poolInfo, poolInfoNetwork } from "@src/programs/pool_info.ts";
import { poolStatus } from "@src/programs/pool_status.ts";
import { protocolParametersFromNode } from "@src/programs/protocol_parameters.ts";
import { stakeAccount } from "@src/programs/stake_account.ts";
import { txStatus } from "@src/programs/tx_status.ts";
import { type Decoded, type EndpointAccess, serve } from "./endpoint.ts";

/** A REST endpoint: the network a request concerns, when it concerns one, read from its decoded parameters. */
const rest = <P, Q>(network?: EndpointAccess<P, Q>["network"]): EndpointAccess<P, Q> => ({
  family: "rest",
  spend: "request",
  ...(network ? { network } : {}),
});
/** The decoded `network` query parameter (these endpoints default it to mainnet). */
const queryNetwork = <P>({ query }: Decoded<P, { readonly network: Network }>) => Either.right(query.network);
/** An explorer endpoint: its network is its decoded `{network}` path segment. */
const explorerAccess = <P extends { readonly network: Network }, Q>(): EndpointAccess<P, Q> => ({
  family: "explorer",
  spend: "request",
  network: ({ path }) => Either.right(path.network),
});

export const restRoutes: ReadonlyArray<Route> = [
  // keyed answers: the router turns `public` into `private` (access_http.ts keyedCaching says why)
  serve(
    api.price,
    rest(),
    () =>
      Effect.flatMap(PriceFeed, (feed) => feed.current).pipe(
        Effect.map((p) => ({ ada_usd: p.adaUsd, updated_at: p.updatedAt.toISOString() })),
      ),
    (p) => ({
      "cache-control": `public, max-age=${
        Math.max(1, 60 - Math.floor((Date.now() - Date.parse(p.updated_at)) / 1000))
      }`,
    }),
  ),
  serve(
    api.poolInfo,
    rest(({ query }) => poolInfoNetwork(query.poolId, query.network)),
    ({ query, network }) => poolInfo(query.poolId, network!),
    () => ({ "cache-control": "public, max-age=60" }),
    keptWithTheValue(),
  ),
  serve(
    api.stakeAccount,
    rest(({ query }) => Either.right(stakeAddressNetwork(query.address))),
    ({ query, network }) => stakeAccount(query.address, network!),
    () => ({ "cache-control": "public, max-age=20" }),
    keptWithTheValue(),
  ),
  serve(
    api.poolStatus,
    rest(queryNetwork),
    ({ query }) => poolStatus(query.network),
    () => ({ "cache-control": "no-store" }),
  ),
  serve(
    api.protocolParameters,
    rest(queryNetwork),
    ({ query }) => protocolParametersFromNode(query.network),
    () => ({ "cache-control": "public, max-age=3600" }),
    // cached for an hour, longer than an answer is kept: a repeated request skips the Schema passes of ~10 KB
    keptWithTheValue(),
  ),
  serve(
    api.txStatus,
    rest(queryNetwork),
    ({ query }) => txStatus(query.txHash, query.network),
    (status) => ({ "cache-control": status.found ? "public, max-age=5" : "public, max-age=2" }),
    // its confirmations count from the tip the value was read at: kept only when that is the reported one
    {
      answers: makeTipAnswers(5_000),
      at: (status, tip) =>
        !status.found ||
        (tip.height !== null && status.confirmations === tip.height - (status.blockNo ?? -1) + 1),
    },
  ),
  serve(
    api.pool,
    explorerAccess(),
    ({ path }) => explorerPool.pool(path.network, path.poolId),
    () => ({ "cache-control": "public, max-age=60" }),
    keptWithTheValue(),
  ),
  serve(
    api.address,
    explorerAccess(),
    ({ path }) => explorerAddress.address(path.network, path.addr),
    () => ({ "cache-control": "public, max-age=5" }),
  ),
  serve(
    api.addressUtxos,
    explorerAccess(),
    ({ path, query }) => explorerAddress.addressUtxos(path.network, path.addr, query.page, query.limit),
    () => ({ "cache-control": "public, max-age=5" }),
    // the page is a value cached per tip (src/programs/explorer_address.ts)
    keptWithTheValue(),
  ),
  serve(
    api.tx,
    explorerAccess(),
    ({ path }) => explorerTransaction.transaction(path.network, path.hash),
    // a transaction's content never changes; whether its outputs are spent does, block by block
    () => ({ "cache-control": "public, max-age=20" }),
    keptWithTheValue(),
  ),
  serve(
    api.blocks,
    explorerAccess(),
    ({ path, query }) => explorer.blocks(path.network, query.page, query.limit),
    () => ({ "cache-control": "public, max-age=5" }),
    // kept encoded per tip when the page was read at the reported tip: its newest block is where the tip puts it
    {
      answers: makeTipAnswers(5_000),
      at: (page, tip, { query }) =>
        tip.height !== null && page.data[0]?.blockNo === tip.height - (query.page - 1) * query.limit,
    },
  ),
  serve(
    api.block,
    explorerAccess(),
    ({ path }) => explorer.block(path.network, path.id),
    // what a hash names never changes (a rolled-back block disappears: 404); a number's block can, near the tip
    (found, { path }) => ({
      "cache-control": typeof path.id === "string" ? "public, max-age=86400" : "public, max-age=20",
      link: `</v2/explorer/${path.network}/block/${found.hash}/txs>; rel="transactions"`,
    }),
    // kept encoded per tip when the block is at or below the reported tip (one the poll has not read yet is not)
    {
      answers: makeTipAnswers(5_000),
      at: (found, tip) => tip.height !== null && found.blockNo <= tip.height,
    },
  ),
  serve(
    api.blockTransactions,
    explorerAccess(),
    ({ path, query }) => explorer.blockTransactions(path.network, path.id, query.page, query.limit),
    (_, { path }) => ({
      "cache-control": typeof path.id === "string" ? "public, max-age=86400" : "public, max-age=20",
    }),
  ),
  serve(
    api.stats,
    explorerAccess(),
    ({ path }) => explorer.stats(path.network),
    () => ({ "cache-control": "public, max-age=5" }),
    // kept encoded per tip; no longer than clients may cache it (figures cached apart from the tip come afresh)
    { answers: makeTipAnswers(5_000), at: (stats, tip) => stats.blockHeight === tip.height },
  ),
  serve(
    api.dreps,
    explorerAccess(),
    ({ path, query }) => explorerDReps.dreps(path.network, query),
    () => ({ "cache-control": "public, max-age=20" }),
    keptWithTheValue(),
  ),
];
