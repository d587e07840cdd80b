/**
 * `GET /api/public/pool-status`: the operator's own pool (`POOL_ID`), live: stake active this epoch and
 * delegators (from this epoch's stake snapshot), blocks this epoch and ever, margin, pledge, the health of each
 * relay by a real TCP connect, and the network tip. ADA amounts in whole ADA, as the spec says.
 */
import { Effect, Option } from "effect";
import { AppConfig } from "@layers/config.ts";
import { ChainDatabases } from "@layers/chain_db.ts";
import { RelayProbe } from "@layers/relay_probe.ts";
import type { Network } from "@schemas/network.ts";
import { decodePoolId } from "@src/domain/cardano_ids.ts";
import { poolStatus as query } from "@src/queries/pool_status.ts";
import { fromSql, NotFoundError } from "@src/domain/errors.ts";

/** Whole ADA, rounded down (1 ADA = 1,000,000 lovelace). */
const wholeAda = (lovelace: string) => Number(BigInt(lovelace) / 1_000_000n);

export const poolStatus = Effect.fnUntraced(function* (network: Network) {
  const { poolId } = yield* AppConfig;
  if (Option.isNone(poolId)) {
    return yield* new NotFoundError({
      message: "No operator pool is configured: set POOL_ID to a bech32 pool id",
    });
  }
  const decoded = decodePoolId(poolId.value, network);
  if (!decoded.ok) return yield* new NotFoundError({ message: `POOL_ID ${decoded.reason}` });
  const db = (yield* ChainDatabases).get(network);
  const row = yield* query(db.sql, decoded.value.hash).pipe(Effect.mapError(fromSql(network)));
  if (!row) {
    return yield* new NotFoundError({ message: `Pool ${poolId.value} is not registered on ${network}` });
  }
  const probe = yield* RelayProbe;
  const relays = yield* Effect.forEach(row.relays, (r) => {
    const host = r.dns ?? r.ipv4 ?? (r.ipv6 ? `[${r.ipv6}]` : "");
    const port = r.port ?? 3001;
    return Effect.map(probe.healthy({ host, port }), (healthy) => ({ name: `${host}:${port}`, healthy }));
  }, { concurrency: "unbounded" });
  return {
    activeStake: wholeAda(row.activeStake),
    delegators: row.delegators,
    blocksMinted: row.epochBlocks,
    lifetimeBlocks: row.lifetimeBlocks,
    margin: row.margin,
    pledge: wholeAda(row.pledge),
    relays,
    network: { tip: { slot: Number(row.tipSlot), epoch: row.tipEpoch, block: row.tipBlock } },
  };
});
