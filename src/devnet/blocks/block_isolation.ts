/**
 * Blocks keep coming when one transaction cannot be written. If a block's write fails on its data (a data
 * exception or integrity violation from the database, or an exception while building its rows), the
 * transaction at fault is found by writing trial blocks of ever shorter prefixes, each rolled back (a binary
 * search: a transaction's rows depend only on those before it), then the block is written without it and
 * without any transaction spending its outputs. Every attempt is one database transaction, so no block is ever
 * half-written. A failure the empty block shares (the database gone, say) is no transaction's fault: it is
 * returned as it is and the mempool stays whole.
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import { SqlError } from "@effect/sql/SqlError";
import { Cause, Data, Effect, Exit, Option } from "effect";
import { type BlockOptions, type BlockTx, writeBlock, type WrittenBlock } from "./block_writer.ts";
import { listOf } from "../decoding/cml_conversions.ts";

export interface RefusedTx {
  readonly id: string;
  /** The database's error (or the exception), or which refused transaction's outputs it spends. */
  readonly reason: string;
}

export interface IsolatedBlock {
  readonly block: WrittenBlock;
  /** Transactions left out of the block, in block order: they can never be written and leave the mempool. */
  readonly refused: ReadonlyArray<RefusedTx>;
}

/** Ends a trial block's database transaction with a rollback once its rows were all written. */
class TrialWritten extends Data.TaggedError("TrialWritten")<Record<never, never>> {}

const sqlState = (error: SqlError): string | undefined => {
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
};

/**
 * Whether the rows themselves failed: SQLSTATE class 22 (data exception: `\u0000` in jsonb, NUL in text), 23
 * (integrity constraint violation) or 54 (a value over a limit: an index row too big), or a defect while building
 * them. Connection and resource failures are not a transaction's fault.
 */
const causedByData = (cause: Cause.Cause<unknown>): boolean => {
  if (Cause.isInterrupted(cause)) return false;
  if (Option.isSome(Cause.dieOption(cause))) return true;
  const failure = Cause.failureOption(cause);
  if (Option.isNone(failure) || !(failure.value instanceof SqlError)) return false;
  const state = sqlState(failure.value);
  return state !== undefined && ["22", "23", "54"].includes(state.slice(0, 2));
};

const describe = (cause: Cause.Cause<unknown>): string => {
  const squashed = Cause.squash(cause);
  if (squashed instanceof SqlError) {
    const inner = squashed.cause instanceof Error ? squashed.cause.message : String(squashed.cause);
    const state = sqlState(squashed);
    return `${state ? `${state} ` : ""}${inner}`;
  }
  return squashed instanceof Error ? squashed.message : String(squashed);
};

const spends = (t: BlockTx, ids: ReadonlySet<string>) =>
  listOf(t.accepted.tx.body().inputs()).some((i) => ids.has(i.transaction_id().to_hex()));

/** Writes the block holding `txs`, leaving out (and reporting) any transaction whose rows cannot be written. */
export const writeBlockIsolating = (
  sql: SqlClient,
  txs: ReadonlyArray<BlockTx>,
  options: BlockOptions,
): Effect.Effect<IsolatedBlock, SqlError> =>
  Effect.gen(function* () {
    /** Writes a block of `candidate` and rolls it back: its cause when it fails, undefined when it would do. */
    const trial = (candidate: ReadonlyArray<BlockTx>) =>
      Effect.map(
        Effect.exit(sql.withTransaction(
          Effect.zipRight(writeBlock(sql, candidate, options), Effect.fail(new TrialWritten())),
        )),
        (exit) =>
          Exit.isFailure(exit) && !Cause.failureOption(exit.cause).pipe(
              Option.exists((e) => e instanceof TrialWritten),
            )
            ? exit.cause
            : undefined,
      );

    /** The first transaction of `candidate` whose rows fail (all of it fails: `failed`), and why. */
    const culprit = (candidate: ReadonlyArray<BlockTx>, failed: Cause.Cause<unknown>) =>
      Effect.gen(function* () {
        if ((yield* trial([])) !== undefined) return undefined;
        let [written, failing, why] = [0, candidate.length, failed];
        while (failing - written > 1) {
          const middle = Math.floor((written + failing) / 2);
          const cause = yield* trial(candidate.slice(0, middle));
          if (cause === undefined) written = middle;
          else if (!causedByData(cause)) return undefined;
          else [failing, why] = [middle, cause];
        }
        return { index: failing - 1, reason: describe(why) };
      });

    const refused: Array<RefusedTx> = [];
    let candidate = txs;
    for (;;) {
      const exit = yield* Effect.exit(writeBlock(sql, candidate, options));
      if (Exit.isSuccess(exit)) return { block: exit.value, refused };
      if (candidate.length === 0 || !causedByData(exit.cause)) return yield* Effect.failCause(exit.cause);
      const found = yield* culprit(candidate, exit.cause);
      if (!found) return yield* Effect.failCause(exit.cause);
      const bad = candidate[found.index]!.accepted.id;
      refused.push({ id: bad, reason: found.reason });
      const gone = new Set([bad]);
      candidate = candidate.filter((t) => {
        if (gone.has(t.accepted.id)) return false;
        if (!spends(t, gone)) return true;
        gone.add(t.accepted.id);
        refused.push({ id: t.accepted.id, reason: `it spends outputs of ${bad}, which was refused` });
        return false;
      });
    }
  });
