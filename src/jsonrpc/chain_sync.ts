/**
 * Chain sync (`findIntersection`, `nextBlock`) from db-sync, one session per WebSocket connection
 * (shared/notes/ogmios.md §3). The cursor starts at the origin; `findIntersection` moves it to the first point
 * given that is on the chain, and the next `nextBlock` then answers `backward` to that point, as Ogmios does.
 * Forward steps read blocks in batches (as many as the client has pipelined, up to 100) and serve them one per
 * request, reading the next two batches meanwhile. At the tip a `nextBlock` waits for ChainTips to report a change.
 *
 * Rollbacks: db-sync deletes the rolled-back blocks (every block id above some id) and inserts the new chain with
 * higher ids. Before reading further, the session checks that its cursor block still exists; if not, the newest
 * surviving block below it is the last point the client's chain and the database share (all surviving ids below
 * the cursor were on the client's chain), and the client gets `backward` to it. A batch is used only if its last
 * block still exists after all its statements ran, so no statement saw a half-deleted block.
 */
import { Context, Effect, Fiber, Schema } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import { ChainTips } from "@layers/chain_tips.ts";
import { backgroundContention, inBackground } from "@layers/statement_priority.ts";
import type { Network } from "@schemas/network.ts";
import { isHash32 } from "@src/domain/cardano_ids.ts";
import { JsonText, stringifyExact as stringify } from "@src/domain/json.ts";
import {
  blockBefore,
  blockExists,
  blocksByHash,
  chainBatch,
  type PointRow,
  tipPointRow,
} from "@src/queries/chain_blocks.ts";
import { fromSql } from "@src/domain/errors.ts";
import type { JsonRpcFailure } from "./failures.ts";
import { arrayOf, paramsDecoder, required, withMessage } from "./params.ts";
import { NoIntersection } from "./protocol_errors.ts";
import { ogmiosBlockTexts } from "./ogmios_block.ts";

export type ChainSyncServices = ChainDatabases | ChainTips;

/** The most blocks read in one batch on a request (the official client pipelines 100 requests). */
export const maxBatch = 100;

/**
 * A batch read ahead while the one before is served: larger, so a long sync runs its ~20 statements once per
 * hundreds of blocks; bounded in transactions to bound a session's memory (two read ahead: a few MB each).
 */
const aheadLimits = { blocks: 1000, transactions: 4000 };

/**
 * The embedded database's read-ahead: smaller, because its single session runs one statement at a time and an
 * interactive request's statement waits for the running one, whose time grows with the batch; smaller still
 * while interactive statements keep meeting the read-ahead (`contendedAt` or more in a second or two).
 */
const embeddedAhead = {
  idle: { blocks: 250, transactions: 1000 },
  contended: { blocks: 40, transactions: 120 },
};
const contendedAt = 4;

type Point = { readonly slot: number; readonly id: string } | "origin";

const pointOf = (row: PointRow | undefined): Point =>
  row ? { slot: Number(row.slot ?? 0), id: row.hash } : "origin";

const tipOf = (row: PointRow | undefined) =>
  row ? { slot: Number(row.slot ?? 0), id: row.hash, height: row.height ?? 0 } : "origin";

const pointRowOf = (b: PointRow): PointRow => ({ id: b.id, hash: b.hash, slot: b.slot, height: b.height });

/** The cursor: the last block the client has (undefined = origin). */
type Cursor = PointRow | undefined;

interface Prefetched {
  readonly point: PointRow;
  /** The block's JSON, written when its batch was read. */
  readonly block: string;
}

interface Fetched {
  readonly blocks: ReadonlyArray<Prefetched>;
  readonly tip: PointRow | undefined;
  /** The tip ChainTips knew before the batch was read: what an empty batch waits to change. */
  readonly seen: PointRow | undefined;
  readonly alive: boolean;
}

const point = withMessage(
  Schema.Union(
    Schema.Literal("origin"),
    Schema.Struct({ slot: Schema.NonNegativeInt, id: Schema.String.pipe(Schema.filter(isHash32)) }),
  ),
  (p) =>
    `each point must be "origin" or {slot: <integer>, id: <64 lower-case hex block hash>}; got ${
      stringify(p).slice(0, 120)
    }`,
);

const noPoints = "'points' must be a non-empty array of \"origin\" or {slot, id}";
const pointsParams = paramsDecoder(Schema.Struct({
  points: required(arrayOf(point, { notArray: noPoints }), noPoints),
}));

export interface ChainSyncSession {
  readonly findIntersection: (
    params: Readonly<Record<string, unknown>> | undefined,
  ) => Effect.Effect<unknown, JsonRpcFailure, ChainSyncServices>;
  /** `inFlight`: how many nextBlock requests the client has pipelined (sizes the next batch). */
  readonly nextBlock: (inFlight: number) => Effect.Effect<unknown, JsonRpcFailure, ChainSyncServices>;
  /**
   * nextBlock's answer when it needs no I/O (a block already read, no rollback to announce), so a transport can
   * give it without a fiber; undefined means "run nextBlock".
   */
  readonly nextBlockNow: (services: Context.Context<ChainTips>) => unknown;
  /** Stops the batches being read ahead (the connection closed: nobody will be served them). */
  readonly close: Effect.Effect<void>;
}

export const makeChainSync = (network: Network): ChainSyncSession => {
  let cursor: Cursor = undefined;
  let rollBackTo: { point: Point } | undefined = undefined;
  let buffer: Array<Prefetched> = [];
  let batchTip: PointRow | undefined = undefined;
  /** The batch after the buffered blocks, being read while they are served. */
  let readAhead: Fiber.RuntimeFiber<Fetched | undefined, JsonRpcFailure> | undefined = undefined;
  /** The batch after that one, read as soon as it is known where readAhead ends (undefined if nowhere). */
  let readAfter: Fiber.RuntimeFiber<Fetched | undefined, JsonRpcFailure> | undefined = undefined;

  const stopReading = Effect.suspend(() => {
    const fibers = [readAfter, readAhead].filter((f) => f !== undefined);
    readAhead = undefined;
    readAfter = undefined;
    return Effect.asVoid(Fiber.interruptAll(fibers));
  });

  const database = fromSql(network);
  const services = Effect.all([ChainDatabases, ChainTips]).pipe(
    Effect.map(([dbs, tips]) => ({ db: dbs.get(network), watch: tips.get(network) })),
  );

  const freshTip = Effect.gen(function* () {
    const { db, watch } = yield* services;
    const tip = yield* Effect.mapError(tipPointRow(db.sql), database);
    yield* watch.observe(tip);
    return tip;
  });

  const findIntersection: ChainSyncSession["findIntersection"] = (params) =>
    Effect.gen(function* () {
      const { points } = yield* pointsParams(params);
      const { db } = yield* services;
      const hashes = points.flatMap((p) => (p === "origin" ? [] : [p.id]));
      const found = hashes.length > 0 ? yield* Effect.mapError(blocksByHash(db.sql, hashes), database) : [];
      const tip = yield* freshTip;
      for (const p of points) {
        const row = p === "origin"
          ? undefined
          : found.find((r) => r.hash === p.id && Number(r.slot) === p.slot);
        if (p !== "origin" && !row) continue;
        cursor = row;
        buffer = [];
        yield* stopReading;
        rollBackTo = { point: p };
        return { intersection: p, tip: tipOf(tip) };
      }
      return yield* new NoIntersection({ tip: tipOf(tip) });
    });

  /** The tip to report with a block: the newest known, never one below the block itself. */
  const tipWith = (block: PointRow, known: PointRow | undefined) =>
    tipOf(known && BigInt(known.id) >= BigInt(block.id) ? known : batchTip);

  /**
   * The blocks after block id `after` (up to `size`), built, with the tip read after them; `alive` is false when
   * db-sync rolled the last of them back meanwhile (then the batch is not used).
   */
  const fetchAfter = (after: string, size: number, maxTransactions?: number) =>
    Effect.gen(function* () {
      const { db, watch } = yield* services;
      // taken before the batch: a block added after the batch was read moves the tip away from it, whereas the
      // tip read after the batch may already be that block, and waiting for a change from it would sleep past it
      const seen = watch.current();
      const batch = yield* Effect.mapError(
        chainBatch(db.sql, after, size, db.dbSync.spentTracking, maxTransactions),
        database,
      );
      const last = batch.blocks[batch.blocks.length - 1];
      const tip = yield* freshTip;
      const alive = !last || (yield* Effect.mapError(blockExists(db.sql, last.id, last.hash), database));
      const blocks = alive ? ogmiosBlockTexts(batch) : [];
      const prefetched = blocks.map((block, i): Prefetched => ({
        point: pointRowOf(batch.blocks[i]!),
        block,
      }));
      return { blocks: prefetched, tip, seen, alive };
    });

  /** The next batch read ahead, after block id `after`, sized for the database. */
  const fetchAhead = (after: string) =>
    Effect.flatMap(services, ({ db }) => {
      const limits = db.backend === "postgres"
        ? aheadLimits
        : backgroundContention(db.sql) >= contendedAt
        ? embeddedAhead.contended
        : embeddedAhead.idle;
      return fetchAfter(after, limits.blocks, limits.transactions);
    });

  /** The batch after the one `before` reads; undefined when that one ends nowhere (at the tip, rolled back). */
  const readBeyond = (before: Fiber.RuntimeFiber<Fetched | undefined, JsonRpcFailure>) =>
    Effect.flatMap(Fiber.join(before), (f) => {
      const last = f?.alive ? f.blocks[f.blocks.length - 1] : undefined;
      return last ? fetchAhead(last.point.id) : Effect.succeed<Fetched | undefined>(undefined);
    });

  /** The forward result as JSON text around the block's (the tip is the one part known only now). */
  const forward = (next: Prefetched, known: PointRow | undefined) => {
    cursor = next.point;
    return new JsonText(
      `{"direction":"forward","block":${next.block},"tip":${JSON.stringify(tipWith(next.point, known))}}`,
    );
  };

  const nextBlockNow: ChainSyncSession["nextBlockNow"] = (services) => {
    if (rollBackTo || buffer.length === 0) return undefined;
    return forward(buffer.shift()!, Context.get(services, ChainTips).get(network).current());
  };

  // background work too: a follower's statements wait behind interactive requests' (and do not count as meeting
  // its own read-ahead)
  const nextBlock: ChainSyncSession["nextBlock"] = (inFlight) =>
    inBackground(Effect.gen(function* () {
      const { db, watch } = yield* services;
      if (rollBackTo) {
        const { point } = rollBackTo;
        rollBackTo = undefined;
        return { direction: "backward", point, tip: tipOf(yield* freshTip) };
      }
      while (true) {
        const next = buffer.shift();
        if (next) return forward(next, watch.current());
        const ahead = readAhead;
        const after = readAfter;
        readAhead = undefined;
        readAfter = undefined;
        if (cursor && !(yield* Effect.mapError(blockExists(db.sql, cursor.id, cursor.hash), database))) {
          yield* Fiber.interruptAll([after, ahead].filter((f) => f !== undefined));
          cursor = yield* Effect.mapError(blockBefore(db.sql, cursor.id), database);
          return { direction: "backward", point: pointOf(cursor), tip: tipOf(yield* freshTip) };
        }
        const size = Math.min(maxBatch, Math.max(1, inFlight));
        const fetched = (ahead ? yield* Fiber.join(ahead) : undefined) ??
          (yield* fetchAfter(cursor?.id ?? "0", size));
        const last = fetched.alive ? fetched.blocks[fetched.blocks.length - 1] : undefined;
        if (!last) {
          if (after) yield* Fiber.interrupt(after);
          if (!fetched.alive) continue;
          // at the tip: wait for the next block (or a rollback), then look again
          yield* watch.changedFrom(fetched.seen?.hash);
          continue;
        }
        batchTip = fetched.tip;
        buffer = [...fetched.blocks];
        // read the next two batches while this one is served (daemons: they outlive this request); the second
        // starts when the first is read, so one batch's statements run while the other's rows are being built
        // as background work (a fork keeps nextBlock's mark): interactive statements go first
        readAhead = after ?? (yield* Effect.forkDaemon(fetchAhead(last.point.id)));
        readAfter = yield* Effect.forkDaemon(readBeyond(readAhead));
      }
    }));

  return { findIntersection, nextBlock, nextBlockNow, close: stopReading };
};
