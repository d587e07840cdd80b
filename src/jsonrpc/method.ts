/** What a JSON-RPC method is: a program from the network and the request's params to a result or a failure. */
import type { Effect } from "effect";
import type { Cache } from "@layers/cache.ts";
import type { ChainDatabases } from "@layers/chain_db.ts";
import type { ChainTips } from "@layers/chain_tips.ts";
import type { NodeClients } from "@layers/node_client.ts";
import type { Network } from "@schemas/network.ts";
import type { JsonRpcFailure } from "./failures.ts";
import type { Params } from "./params.ts";

/** What dispatching any request needs: the chain databases, their tips, the cache and the node clients. */
export type MethodServices = ChainDatabases | Cache | ChainTips | NodeClients;

export type MethodProgram = (
  network: Network,
  params: Params,
) => Effect.Effect<unknown, JsonRpcFailure, MethodServices>;
