/**
 * `GET /api/public/tx-status?txHash=…[&network=…]`: whether a transaction is on chain, in which block, with how
 * many confirmations (tip block number - block number + 1) and its fee. Mainnet unless `network` says otherwise.
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { TxStatus } from "@schemas/public.ts";
import type { Network } from "@schemas/network.ts";
import { txConfirmation } from "@src/queries/tx_status.ts";
import { atTip } from "./at_tip.ts";
import { fromSql } from "@src/domain/errors.ts";

export const txStatus = Effect.fnUntraced(function* (hash: string, network: Network) {
  const db = (yield* ChainDatabases).get(network);
  const found = yield* atTip(
    network,
    `tx-status:${hash}`,
    txConfirmation(db.sql, hash).pipe(Effect.mapError(fromSql(network))),
  );
  if (!found) return { found: false, blockNo: null, blockTime: null, confirmations: null } satisfies TxStatus;
  // blocks from the transaction's block to the tip, both counted; the genesis pseudo-block sits before block 0
  const depth = found.tipBlockNo === null ? null : found.tipBlockNo - (found.blockNo ?? -1) + 1;
  return {
    found: true,
    blockNo: found.blockNo,
    blockTime: found.blockTime.toISOString(),
    confirmations: depth,
    fee: found.fee,
  } satisfies TxStatus;
});
