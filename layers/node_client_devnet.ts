/**
 * The NodeClient of the embedded default's living devnet (src/devnet/): transactions evaluated and submitted by
 * the devnet engine, which writes a block into the chain database every `blockSeconds` for as long as the
 * layer's scope is open. Ledger queries are answered from that chain database as without a node.
 */
import type { SqlError } from "@effect/sql/SqlError";
import { Effect, type Scope } from "effect";
import type { Network } from "@schemas/network.ts";
import { NodeRejected, NodeUnavailable } from "@src/domain/errors.ts";
import { makeDevnet } from "@src/devnet/devnet.ts";
import type { OgmiosUtxoEntry } from "@src/devnet/decoding/cml_conversions.ts";
import type { LedgerRejection } from "@src/devnet/errors.ts";
import type { ChainDatabase } from "./chain_db.ts";
import type { NodeClient } from "./node_client.ts";

/** A ledger rejection is Ogmios' own error; a database failure is ours, said plainly (the details go to the log). */
const failure =
  (network: Network, what: string) =>
  (e: LedgerRejection | SqlError): Effect.Effect<never, NodeRejected | NodeUnavailable> =>
    e._tag === "LedgerRejection"
      ? Effect.fail(new NodeRejected({ error: e.error }))
      : Effect.logError(`${network} devnet: ${what} failed on the chain database`, e).pipe(
        Effect.zipRight(Effect.fail(
          new NodeUnavailable({
            message: `the ${network} devnet could not ${what} the transaction (chain database failure).`,
          }),
        )),
      );

export const devnetNodeClient = (
  chain: ChainDatabase,
  options: { readonly dataDir: string; readonly blockSeconds: number },
): Effect.Effect<NodeClient, SqlError, Scope.Scope> =>
  Effect.gen(function* () {
    const network = chain.network;
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
      evaluateTransaction: (tx) =>
        devnet.evaluate(tx.cbor, tx.additionalUtxo as ReadonlyArray<OgmiosUtxoEntry> | undefined).pipe(
          Effect.catchAll(failure(network, "evaluate")),
        ),
      submitTransaction: (tx) => devnet.submit(tx.cbor).pipe(Effect.catchAll(failure(network, "submit"))),
      devnet: devnet.stats,
    } satisfies NodeClient;
  });
