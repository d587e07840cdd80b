/**
 * The ledger eras a db-sync database has seen: the first epoch of each protocol major version (epoch_param has
 * one row per Shelley-and-later epoch; anything before its first row is Byron), and the tip's epoch and slot.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import { Effect } from "effect";
import type { EraHistory } from "@src/domain/era_summaries.ts";

export const eraHistory = (sql: SqlClient): Effect.Effect<EraHistory, SqlError> =>
  Effect.map(
    Effect.all([
      sql<{ major: number; epoch: number }>`
        select protocol_major as major, min(epoch_no) as epoch from epoch_param group by protocol_major
        order by 2`,
      sql<{ epoch: number; slot: string }>`
        select epoch_no as epoch, slot_no::text as slot from block where block_no is not null
        order by id desc limit 1`,
    ]),
    ([firstEpochs, [tip]]) => ({ firstEpochs, tipEpoch: tip?.epoch ?? 0, tipSlot: Number(tip?.slot ?? 0) }),
  );
