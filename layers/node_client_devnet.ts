/**
 * The NodeClient of the embedded default's living devnet (src/devnet/): ledger queries answered from the chain
 * database as without a node (the devnet writes its blocks there), transactions evaluated and submitted by the
 * devnet engine, which writes a block every `blockSeconds` for as long as the layer's scope is open.
 */
import type { SqlError } from "@effect/sql/SqlError";
import { Effect, type Scope } from "effect";
import type { Network } from "@schemas/network.ts";
import type { RpcError } from "@src/jsonrpc/frame.ts";
import type { QueryServices } from "@src/jsonrpc/method.ts";
import { makeDevnet } from "@src/devnet/devnet.ts";
import type { OgmiosUtxoEntry } from "@src/devnet/decoding/cml_conversions.ts";
import type { LedgerRejection } from "@src/devnet/errors.ts";
import type { ChainDatabase } from "./chain_db.ts";
import { chainDbNodeClient } from "./node_client_chain_db.ts";
import type { NodeClient } from "./node_client.ts";

/** A ledger rejection is Ogmios' own error; a database failure is ours, said plainly (the details go to the log). */
const toRpcError = (network: Network, what: string) => (e: LedgerRejection | SqlError) =>
  e._tag === "LedgerRejection" ? Effect.succeed(e.error as RpcError) : Effect.logError(
    `${network} devnet: ${what} failed on the chain database`,
    e,
  ).pipe(Effect.as<RpcError>({
    code: -32603,
    message:
      `Internal error: the ${network} devnet could not ${what} the transaction (chain database failure).`,
  }));

export const devnetNodeClient = (
  chain: ChainDatabase,
  options: { readonly dataDir: string; readonly blockSeconds: number },
): Effect.Effect<NodeClient, SqlError, QueryServices | Scope.Scope> =>
  Effect.gen(function* () {
    const network = chain.network;
    const queries = yield* chainDbNodeClient(network, "embedded demo chain");
    // the wallets' seed is DATA_DIR's, the one `npm run devnet -- wallets` prints from
    const devnet = yield* makeDevnet(chain.sql, {
      network,
      dataDir: options.dataDir,
      spentTracking: chain.dbSync.spentTracking,
      blockIntervalMs: Math.round(options.blockSeconds * 1000),
    });
    yield* devnet.start;
    return {
      description: `the devnet (a block every ${options.blockSeconds} s, ${devnet.wallets.length} funded ` +
        "wallets: npm run devnet -- wallets)",
      query: queries.query,
      evaluateTransaction: (tx) =>
        devnet.evaluate(tx.cbor, tx.additionalUtxo as ReadonlyArray<OgmiosUtxoEntry> | undefined).pipe(
          Effect.catchAll((e) => Effect.flatMap(toRpcError(network, "evaluate")(e), Effect.fail)),
        ),
      submitTransaction: (tx) =>
        devnet.submit(tx.cbor).pipe(
          Effect.catchAll((e) => Effect.flatMap(toRpcError(network, "submit")(e), Effect.fail)),
        ),
      devnet: devnet.stats,
    } satisfies NodeClient;
  });
