/**
 * Registered reward accounts among the given ones (29-byte reward addresses in hex: header byte and credential),
 * with their pool, DRep, spendable rewards and deposit. Unregistered accounts are left out, as the ledger has
 * none for them.
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import type { Network } from "@schemas/network.ts";
import { fromSql } from "@src/domain/errors.ts";
import { rewardAccounts } from "@src/queries/reward_accounts.ts";

export const registeredRewardAccounts = (network: Network, hashesRaw: ReadonlyArray<string>) =>
  Effect.flatMap(ChainDatabases, (dbs) => rewardAccounts(dbs.get(network).sql, hashesRaw)).pipe(
    Effect.mapError(fromSql(network)),
    Effect.map((rows) => rows.filter((r) => r.registered)),
  );
