/**
 * A stake account in full (Blockfrost's `/accounts/{stake_address}` and its addresses): the current state as
 * `/api/public/stake-account` gives it (./stake_account.ts: registration, pool, withdrawable rewards, controlled
 * stake), its DRep (the ledger's reward-account view, as ./ledger/reward_accounts.ts reads it), what it received
 * and withdrew over its life (src/queries/stake_account_history.ts), in one statement (stakeAccountInFull). An
 * account the chain has never seen is not found. The unspent outputs' sum is read here from the stake address's
 * kept summary (layers/address_summaries.ts), so its SQL is one file from this one.
 */
import { Effect } from "effect";
import { AddressSummaries } from "@layers/address_summaries.ts";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { decodeStakeAddress } from "@src/domain/cardano_ids.ts";
import { decodedOr, fromSql, NotFoundError } from "@src/domain/errors.ts";
import { drepIdCip129 } from "@src/queries/dreps.ts";
import type { PageOptions } from "@src/queries/page_options.ts";
import { stakeAccountAddresses as addressesQuery } from "@src/queries/stake_account_addresses.ts";
import { stakeAccountInFull } from "@src/queries/stake_account.ts";
import { atTip } from "./at_tip.ts";

/** The unspent outputs' sum of a stake address, from its kept summary (`/api/public/stake-account` reads it too). */
export const stakeOutputsBalance = (address: string, network: Network) =>
  Effect.flatMap(AddressSummaries, (summaries) =>
    Effect.map(
      summaries.get(network, { text: address.toLowerCase(), paymentCred: null }),
      (outputs) => outputs?.balance ?? "0",
    ));

const notSeen = (address: string, network: Network) =>
  new NotFoundError({ message: `The stake account ${address} has never been seen on ${network}` });

export const stakeAccountContent = Effect.fnUntraced(
  function* (address: string, network: Network) {
    const { hashRaw } = yield* decodedOr("stake_address", decodeStakeAddress(address, network));
    const db = (yield* ChainDatabases).get(network);
    const balance = yield* stakeOutputsBalance(address, network);
    const { state, history, drep } = yield* atTip(
      network,
      `stake-account-in-full:${hashRaw}`,
      stakeAccountInFull(db.sql, hashRaw, db.dbSync.spentTracking, balance).pipe(
        Effect.mapError(fromSql(network)),
      ),
    );
    if (!history) return yield* notSeen(address, network);
    return {
      stakeAddress: address.toLowerCase(),
      ...state,
      ...history,
      drepId: drep === null ? null : drep.raw === null ? drep.view : drepIdCip129(drep.raw, drep.hasScript),
    };
  },
);

export const stakeAccountAddresses = Effect.fnUntraced(
  function* (address: string, network: Network, page: PageOptions) {
    const { hashRaw } = yield* decodedOr("stake_address", decodeStakeAddress(address, network));
    const db = (yield* ChainDatabases).get(network);
    const found = yield* atTip(
      network,
      `stake-account-addresses:${hashRaw}:${page.count}:${page.page}:${page.order}`,
      addressesQuery(db.sql, hashRaw, page).pipe(Effect.mapError(fromSql(network))),
    );
    if (!found.known) return yield* notSeen(address, network);
    return found.addresses;
  },
);
