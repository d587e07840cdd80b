/**
 * `queryLedgerState/liveStakeDistribution`: each pool's share of the delegated stake as an exact "n/d" ratio,
 * with its VRF key hash, from db-sync's newest stake snapshot (db-sync keeps no stake any livelier than that).
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import { latestStakeDistribution } from "@src/queries/stake_distribution.ts";
import type { MethodProgram } from "../method.ts";
import { errors } from "../frame.ts";

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

export const liveStakeDistribution: MethodProgram = (network) =>
  Effect.flatMap(ChainDatabases, (dbs) => latestStakeDistribution(dbs.get(network).sql)).pipe(
    Effect.mapError((e) => errors.internal(`chain database: ${e.message}`)),
    Effect.map((rows) => {
      const total = rows.reduce((s, r) => s + BigInt(r.stake), 0n);
      return Object.fromEntries(
        rows.filter((r) => r.vrf !== null).map((r) => {
          const stake = BigInt(r.stake);
          const d = total === 0n ? 1n : gcd(stake, total) || 1n;
          return [r.id, { stake: `${stake / d}/${total === 0n ? 1n : total / d}`, vrf: r.vrf! }];
        }),
      );
    }),
  );
