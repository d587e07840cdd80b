/** What a JSON-RPC method is: a program from the network and the request's params to a result or an error. */
import type { Effect } from "effect";
import type { Cache } from "@layers/cache.ts";
import type { ChainDatabases } from "@layers/chain_db.ts";
import type { ChainTips } from "@layers/chain_tips.ts";
import type { NodeClients } from "@layers/node_client.ts";
import type { Network } from "@schemas/network.ts";
import type { RpcError } from "./frame.ts";

/** What a ledger query answered from db-sync needs. */
export type QueryServices = ChainDatabases | Cache | ChainTips;

export type MethodProgram = (
  network: Network,
  params: Readonly<Record<string, unknown>> | undefined,
) => Effect.Effect<unknown, RpcError, QueryServices>;

/** What dispatching any request needs: the queries' services and the node clients. */
export type MethodServices = QueryServices | NodeClients;
