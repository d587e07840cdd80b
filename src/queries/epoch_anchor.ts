/**
 * The anchor of a chain's slot and epoch arithmetic (src/domain/chain_time.ts): the start of the tip's epoch as
 * the chain database records it, or `meta.start_time` (slot 0, epoch 0) on an empty chain.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import type { EpochAnchor } from "@src/domain/chain_time.ts";

export const readEpochAnchor = (sql: SqlClient): Effect.Effect<EpochAnchor, SqlError> =>
  Effect.gen(function* () {
    const [tip] = yield* sql<{ epoch: number; slot: string; time: Date }>`
      select epoch_no as epoch, (slot_no - epoch_slot_no)::text as slot,
             time - make_interval(secs => epoch_slot_no) as time
      from block where block_no is not null and epoch_slot_no is not null
      order by id desc limit 1`;
    if (tip) return { epoch: tip.epoch, slot: Number(tip.slot), time: tip.time };
    const [meta] = yield* sql<{ start: Date }>`select start_time as start from meta order by id limit 1`;
    return { epoch: 0, slot: 0, time: meta?.start ?? new Date(0) };
  });
