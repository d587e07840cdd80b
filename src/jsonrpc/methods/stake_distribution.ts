/**
 * `queryLedgerState/liveStakeDistribution`: each pool's share of the delegated stake as an exact "n/d" ratio,
 * with its VRF key hash, from db-sync's newest stake snapshot.
 */
import { Effect } from "effect";
import { liveStakeDistribution as distribution } from "@src/programs/ledger/stake_distribution.ts";
import type { MethodProgram } from "../method.ts";

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

export const liveStakeDistribution: MethodProgram = (network) =>
  Effect.map(distribution(network), ({ pools, total }) =>
    Object.fromEntries(
      pools.map(({ id, vrf, stake }) => {
        const d = total === 0n ? 1n : gcd(stake, total) || 1n;
        return [id, { stake: `${stake / d}/${total === 0n ? 1n : total / d}`, vrf }];
      }),
    ));
