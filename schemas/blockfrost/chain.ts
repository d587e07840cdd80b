/**
 * The Blockfrost dialect's chain endpoints (`/`, health, network, genesis, epochs, blocks), paths relative to a
 * network's base URL (schemas/blockfrost/api.ts), answers in Blockfrost's published shapes.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint";
import * as HttpApiGroup from "@effect/platform/HttpApiGroup";
import * as OpenApi from "@effect/platform/OpenApi";
import { Schema } from "effect";
import { BlockId } from "../api.ts";
import {
  BfBlock,
  BfBlockTxs,
  BfEpoch,
  BfEpochParameters,
  BfGenesis,
  BfNetwork,
  BfNetworkEras,
} from "./chain_content.ts";
import { BfPaging } from "./wire.ts";

export const root = HttpApiEndpoint.get("root", "/")
  .addSuccess(Schema.Struct({ url: Schema.String, version: Schema.String }))
  .annotateContext(OpenApi.annotations({ summary: "The API's root: where it lives and its version" }));

export const health = HttpApiEndpoint.get("health", "/health")
  .addSuccess(Schema.Struct({ is_healthy: Schema.Boolean }))
  .annotateContext(OpenApi.annotations({ summary: "Whether the network's chain database answers" }));

export const healthClock = HttpApiEndpoint.get("healthClock", "/health/clock")
  .addSuccess(Schema.Struct({ server_time: Schema.Int }))
  .annotateContext(OpenApi.annotations({ summary: "The server's time, in milliseconds since the epoch" }));

export const network = HttpApiEndpoint.get("network", "/network")
  .addSuccess(BfNetwork)
  .annotateContext(OpenApi.annotations({
    summary: "Supply and stake",
    description: "Circulating, treasury, reserves and active stake as of the latest epoch boundary; " +
      "live stake: the newest stake snapshot; locked: unspent outputs at script addresses.",
  }));

export const networkEras = HttpApiEndpoint.get("networkEras", "/network/eras")
  .addSuccess(BfNetworkEras)
  .annotateContext(
    OpenApi.annotations({ summary: "The ledger eras: each one's bounds and slot parameters" }),
  );

export const genesis = HttpApiEndpoint.get("genesis", "/genesis")
  .addSuccess(BfGenesis)
  .annotateContext(OpenApi.annotations({ summary: "The network's genesis parameters" }));

export const epochsLatest = HttpApiEndpoint.get("epochsLatest", "/epochs/latest")
  .addSuccess(BfEpoch)
  .annotateContext(
    OpenApi.annotations({ summary: "The current epoch: its bounds, blocks, transactions and stake" }),
  );

export const epochsLatestParameters = HttpApiEndpoint.get(
  "epochsLatestParameters",
  "/epochs/latest/parameters",
)
  .addSuccess(BfEpochParameters)
  .annotateContext(OpenApi.annotations({ summary: "The protocol parameters in force" }));

const EpochNumber = Schema.NumberFromString.annotations({ message: () => "must be an epoch number" }).pipe(
  Schema.int({ message: () => "must be a whole epoch number" }),
  Schema.between(0, 2 ** 31 - 1, { message: () => "must be an epoch number from 0 to 2147483647" }),
);

export const epochParameters = HttpApiEndpoint.get("epochParameters", "/epochs/:number/parameters")
  .setPath(Schema.Struct({ number: EpochNumber }))
  .addSuccess(BfEpochParameters)
  .annotateContext(OpenApi.annotations({ summary: "An epoch's protocol parameters" }));

export const blocksLatest = HttpApiEndpoint.get("blocksLatest", "/blocks/latest")
  .addSuccess(BfBlock)
  .annotateContext(OpenApi.annotations({ summary: "The newest block" }));

export const blocksLatestTxs = HttpApiEndpoint.get("blocksLatestTxs", "/blocks/latest/txs")
  .setUrlParams(BfPaging)
  .addSuccess(BfBlockTxs)
  .annotateContext(OpenApi.annotations({ summary: "The newest block's transactions, by their place in it" }));

const blockPath = Schema.Struct({ hash_or_number: BlockId });

export const block = HttpApiEndpoint.get("block", "/blocks/:hash_or_number")
  .setPath(blockPath)
  .addSuccess(BfBlock)
  .annotateContext(OpenApi.annotations({ summary: "A block by hash or number" }));

export const blockTxs = HttpApiEndpoint.get("blockTxs", "/blocks/:hash_or_number/txs")
  .setPath(blockPath)
  .setUrlParams(BfPaging)
  .addSuccess(BfBlockTxs)
  .annotateContext(OpenApi.annotations({ summary: "A block's transactions, by their place in it" }));

/** `latest` comes before the parameterised paths: the first declared route that matches answers. */
export class ChainGroup extends HttpApiGroup.make("chain")
  .add(root)
  .add(health)
  .add(healthClock)
  .add(network)
  .add(networkEras)
  .add(genesis)
  .add(epochsLatest)
  .add(epochsLatestParameters)
  .add(epochParameters)
  .add(blocksLatest)
  .add(blocksLatestTxs)
  .add(block)
  .add(blockTxs)
  .annotateContext(OpenApi.annotations({ description: "Health, network, genesis, epochs and blocks" })) {}
