/**
 * `GET /api/public/stake-account?address=stake1…`: registration, delegated pool, spendable rewards and total
 * stake of a reward account. The network comes from the prefix (stake1 mainnet, stake_test1 preprod). An account
 * the chain has never seen is a valid answer: unregistered, zero balances. The unspent outputs' sum comes from
 * the stake address's kept summary (layers/address_summaries.ts).
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { decodeStakeAddress } from "@src/domain/cardano_ids.ts";
import { stakeAccount as query } from "@src/queries/stake_account.ts";
import { decodedOr, fromSql } from "@src/domain/errors.ts";
import { atTip } from "./at_tip.ts";
import { stakeOutputsBalance } from "./stake_account_content.ts";

/** `network` is `stakeAddressNetwork(address)`, which the route resolved once for the access check. */
export const stakeAccount = Effect.fnUntraced(function* (address: string, network: Network) {
  const { hashRaw } = yield* decodedOr("address", decodeStakeAddress(address, network));
  const db = (yield* ChainDatabases).get(network);
  const balance = yield* stakeOutputsBalance(address, network);
  return yield* atTip(
    network,
    `stake-account:${hashRaw}`,
    query(db.sql, hashRaw, db.dbSync.spentTracking, balance).pipe(Effect.mapError(fromSql(network))),
  );
});
