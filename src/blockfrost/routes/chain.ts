/**
 * The Blockfrost dialect's chain routes (schemas/blockfrost/chain.ts): root, health, network, genesis, epochs,
 * blocks. `latest` routes come before the parameterised ones (the first matching route answers).
 */
import { Effect, Option } from "effect";
import * as chain from "@schemas/blockfrost/chain.ts";
import { eraSummaries } from "@src/domain/era_summaries.ts";
import { NotFoundError } from "@src/domain/errors.ts";
import { keptWithTheValue } from "@src/http/kept_answer.ts";
import type { Route } from "@src/http/route.ts";
import { makeTipAnswers } from "@src/http/tip_answers.ts";
import { chainBlock, chainBlockTransactions } from "@src/programs/chain_block.ts";
import { latestEpoch } from "@src/programs/chain_epoch.ts";
import { epochParameters } from "@src/programs/epoch_parameters.ts";
import { health } from "@src/programs/health.ts";
import { networkEraHistory } from "@src/programs/ledger/eras.ts";
import { networkStartTime } from "@src/programs/ledger/start_time.ts";
import { networkSupply } from "@src/programs/network_supply.ts";
import { serveBlockfrost } from "../endpoint.ts";
import {
  toBfBlock,
  toBfBlockTxs,
  toBfEpoch,
  toBfGenesis,
  toBfNetwork,
  toBfNetworkEras,
} from "../encode_chain.ts";
import { toBfEpochParameters } from "../encode_epoch_parameters.ts";

const noStore = () => ({ "cache-control": "no-store" });

export const chainRoutes: ReadonlyArray<Route> = [
  ...serveBlockfrost(
    chain.root,
    ({ ctx }) =>
      Effect.succeed({
        url: Option.getOrElse(ctx.config.publicUrl, () => ctx.url.origin),
        version: "0.1.0",
      }),
    { headers: () => ({ "cache-control": "public, max-age=3600" }) },
  ),
  ...serveBlockfrost(
    chain.health,
    ({ network }) => Effect.map(health(), (h) => ({ is_healthy: h.networks[network].status === "ok" })),
    { headers: noStore },
  ),
  ...serveBlockfrost(chain.healthClock, () => Effect.sync(() => ({ server_time: Date.now() })), {
    headers: noStore,
  }),
  ...serveBlockfrost(chain.network, ({ network }) => Effect.map(networkSupply(network), toBfNetwork), {
    perTip: keptWithTheValue(),
  }),
  ...serveBlockfrost(
    chain.networkEras,
    ({ network }) => Effect.map(networkEraHistory(network), (h) => toBfNetworkEras(eraSummaries(h))),
    { perTip: keptWithTheValue() },
  ),
  ...serveBlockfrost(
    chain.genesis,
    ({ network }) =>
      networkStartTime(network).pipe(
        Effect.map((start) => toBfGenesis(network, start)),
        Effect.catchTag("ChainIncomplete", (e) => Effect.fail(new NotFoundError({ message: e.message }))),
      ),
    { perTip: keptWithTheValue() },
  ),
  ...serveBlockfrost(chain.epochsLatest, ({ network }) => Effect.map(latestEpoch(network), toBfEpoch), {
    perTip: keptWithTheValue(),
  }),
  // what the providers ask before building each transaction: kept encoded (about 20 KB of cost models)
  ...serveBlockfrost(
    chain.epochsLatestParameters,
    ({ network }) => Effect.map(epochParameters(network, "latest"), toBfEpochParameters),
    { perTip: keptWithTheValue() },
  ),
  ...serveBlockfrost(
    chain.epochParameters,
    ({ network, path }) => Effect.map(epochParameters(network, path.number), toBfEpochParameters),
    { perTip: keptWithTheValue() },
  ),
  ...serveBlockfrost(
    chain.blocksLatest,
    ({ network }) => Effect.map(chainBlock(network, "latest"), (b) => toBfBlock(b.block, b.confirmations)),
    // kept when the block read is the reported tip's
    { perTip: { answers: makeTipAnswers(5_000), at: (b, tip) => b.height === tip.height } },
  ),
  ...serveBlockfrost(
    chain.blocksLatestTxs,
    ({ network, query }) =>
      Effect.map(
        chainBlockTransactions(network, "latest", query.page, query.count, query.order),
        toBfBlockTxs,
      ),
  ),
  // a block and its transactions are cached at the tip (confirmations counted from it): kept encoded with them
  ...serveBlockfrost(
    chain.block,
    ({ network, path }) =>
      Effect.map(chainBlock(network, path.hash_or_number), (b) => toBfBlock(b.block, b.confirmations)),
    { perTip: keptWithTheValue() },
  ),
  ...serveBlockfrost(
    chain.blockTxs,
    ({ network, path, query }) =>
      Effect.map(
        chainBlockTransactions(network, path.hash_or_number, query.page, query.count, query.order),
        toBfBlockTxs,
      ),
    { perTip: keptWithTheValue() },
  ),
];
