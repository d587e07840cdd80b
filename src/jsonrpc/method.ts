/** What a JSON-RPC method is: a program from the network and the request's params to a result or an error. */
import type { Effect } from "effect";
import type { Cache } from "@layers/cache.ts";
import type { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import type { RpcError } from "./frame.ts";

export type MethodProgram = (
  network: Network,
  params: Readonly<Record<string, unknown>> | undefined,
) => Effect.Effect<unknown, RpcError, MethodServices>;

export type MethodServices = ChainDatabases | Cache;
