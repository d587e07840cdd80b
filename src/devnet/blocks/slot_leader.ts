/**
 * Who made a devnet block: a pool with active stake in the block's epoch, not retired, drawn by its share of that
 * stake as leader election would (so performance-based rewards follow), with the VRF key and operational
 * certificate of the pool's latest earlier block; only pools that made a block before have keys to reuse. The
 * draw is a low-discrepancy sequence over block numbers: deterministic, and every pool's share of blocks
 * converges to its stake share.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";

export interface SlotLeader {
  readonly slotLeaderId: number;
  readonly vrfKey: string | null;
  readonly opCert: Uint8Array | null;
  readonly counter: number | null;
}

/** The fractional part of n times the golden ratio's inverse: evenly spread over [0, 1) for n = 1, 2, ... */
const spread = (n: number) => (n * 0.6180339887498949) % 1;

export const pickSlotLeader = (
  sql: SqlClient,
  o: { epoch: number; blockNo: number },
): Effect.Effect<SlotLeader | undefined, SqlError> =>
  Effect.gen(function* () {
    const pools = yield* sql<{ leader: string; stake: string }>`
      with stake as (
        select pool_id, sum(amount) as amount from epoch_stake where epoch_no = ${o.epoch} group by pool_id)
      select sl.id::text as leader, s.amount::text as stake
      from stake s join slot_leader sl on sl.pool_hash_id = s.pool_id
      where exists (select 1 from block b where b.slot_leader_id = sl.id and b.vrf_key is not null)
        and not exists (select 1 from pool_retire r where r.hash_id = s.pool_id and r.retiring_epoch <= ${o.epoch}
          and r.announced_tx_id > (select max(u.registered_tx_id) from pool_update u where u.hash_id = s.pool_id))
      order by sl.id`;
    const total = pools.reduce((sum, p) => sum + Number(p.stake), 0);
    let x = spread(o.blockNo) * total;
    const chosen = pools.find((p) => (x -= Number(p.stake)) < 0) ?? pools.at(-1);
    const [keys] = yield* sql<SlotLeader>`
      select slot_leader_id::int as "slotLeaderId", vrf_key as "vrfKey", op_cert as "opCert",
             op_cert_counter as counter
      from block where vrf_key is not null and ${
      chosen ? sql`slot_leader_id = ${Number(chosen.leader)}` : sql`block_no is not null`
    }
      order by id desc limit 1`;
    return keys;
  });
