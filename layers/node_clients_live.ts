/** The node clients the service runs with, chosen per network from the configuration and the chain database. */
import type { SqlError } from "@effect/sql/SqlError";
import { Effect, Layer, Option } from "effect";
import { type Network, networks } from "@schemas/network.ts";
import { AppConfig } from "./config.ts";
import { ChainDatabases } from "./chain_db.ts";
import { type NodeClient, NodeClients } from "./node_client.ts";
import { devnetNodeClient } from "./node_client_devnet.ts";
import { noNodeClient } from "./node_client_none.ts";
import { ogmiosNodeClient, type OgmiosUnreachable } from "./node_client_ogmios.ts";
import { phase } from "./startup_phase.ts";

/**
 * One node client per network: the Ogmios upstream when its URL is set; otherwise the devnet on the embedded
 * demo chain (only there: a PostgreSQL database is db-sync's to write, or at least not ours) unless
 * DEVNET_BLOCK_SECONDS is 0; otherwise none.
 */
export const NodeClientsLive: Layer.Layer<
  NodeClients,
  SqlError | OgmiosUnreachable,
  AppConfig | ChainDatabases
> = Layer.scoped(
  NodeClients,
  Effect.gen(function* () {
    const config = yield* AppConfig;
    const chains = yield* ChainDatabases;
    const clients = new Map<Network, NodeClient>();
    for (const network of networks) {
      const url = config.networks[network].ogmiosUrl;
      const chain = chains.get(network);
      const client = Option.isSome(url)
        ? yield* ogmiosNodeClient(network, url.value)
        : chain.backend === "pglite" && chain.demoChain && config.devnetBlockSeconds > 0
        ? yield* phase(
          `${network} devnet: start (wallets funded and the chain caught up to the clock)`,
          () => devnetNodeClient(chain, { dataDir: config.dataDir, blockSeconds: config.devnetBlockSeconds }),
          { network },
        )
        : noNodeClient(network, chain.backend === "pglite" && chain.demoChain);
      yield* Effect.logInfo(`${network}: JSON-RPC node client is ${client.description}`);
      clients.set(network, client);
    }
    return { get: (network: Network) => clients.get(network)! };
  }),
);
