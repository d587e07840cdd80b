/**
 * The devnet engine behind `/v1/ogmios` in the embedded default: one per network's chain database. It
 * evaluates and submits transactions (phase 1 against the chain + mempool, phase 2 with the UPLC evaluator),
 * keeps accepted ones in a mempool, and produces a block every `blockIntervalMs` at the wall clock's slot, as
 * db-sync would have written it. Results and failures are Ogmios-shaped (`LedgerRejection` carries the error).
 * As a node's, the mempool holds at most two blocks' worth: a submission that does not fit waits, in arrival
 * order, until blocks make room, and is validated then (ouroboros-consensus validates a transaction only once
 * there is room for it, so one spending a waiting transaction's outputs is accepted after it).
 */
import type { SqlClient } from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import {
  Deferred,
  Duration,
  Effect,
  Either,
  Exit,
  FiberId,
  PubSub,
  type Queue,
  Ref,
  Schedule,
  type Scope,
} from "effect";
import type { Network } from "@schemas/network.ts";
import type { SpentTracking } from "@src/dbsync/detect.ts";
import { demoNetworks } from "@src/demo_chain/network_params.ts";
import { makeChainTime } from "@src/domain/chain_time.ts";
import { slotLengthMs } from "@src/domain/network_constants.ts";
import { readEpochAnchor } from "@src/queries/epoch_anchor.ts";
import { makeAdmissionQueue } from "./mempool/admission_queue.ts";
import { addMeasures, blockCapacity, measureTx, mempoolCapacity, within } from "./blocks/block_capacity.ts";
import { writeBlockIsolating } from "./blocks/block_isolation.ts";
import type { BlockTx, WrittenBlock } from "./blocks/block_writer.ts";
import { listOf, type OgmiosUtxoEntry } from "./decoding/cml_conversions.ts";
import { unstorableText } from "./rows/dbsync_text.ts";
import type { DecodedTransaction } from "./decoding/decode_tx.ts";
import * as E from "./errors.ts";
import type { RedeemerBudget, SlotConfig } from "./rules/phase2.ts";
import { evaluateTransaction } from "./rules/evaluate_tx.ts";
import { scriptsOutcome } from "./rules/scripts_outcome.ts";
import { expiredBefore } from "./mempool/expiry.ts";
import { fundWallets } from "./wallets/faucet.ts";
import { decodeForSubmission } from "./decoding/ledger_decodable.ts";
import { type LedgerParams, type LedgerView, makeLedgerView, readLedgerParams } from "./rules/ledger_view.ts";
import { Mempool } from "./mempool/mempool.ts";
import { validatePhase1 } from "./rules/phase1.ts";
import { referenceScriptsSize } from "./rules/reference_scripts.ts";
import { txLimitsFailure } from "./mempool/tx_limits.ts";
import { deriveWallets, type DevnetWallet, loadOrCreateSeed } from "./wallets/wallets.ts";

export interface DevnetConfig {
  readonly network: Network;
  /** Where the wallets' seed lives (`DATA_DIR`). */
  readonly dataDir: string;
  readonly spentTracking?: SpentTracking;
  /** Time between blocks (default 3 s). */
  readonly blockIntervalMs?: number;
}

export interface Devnet {
  readonly network: Network;
  readonly wallets: ReadonlyArray<DevnetWallet>;
  /** Ogmios `submitTransaction`: waits for room in the mempool, then phase 1 and 2 and into the mempool. */
  readonly submit: (
    cborHex: string,
  ) => Effect.Effect<{ transaction: { id: string } }, E.LedgerRejection | SqlError>;
  /** Ogmios `evaluateTransaction`: execution units per redeemer; `additionalUtxo` as in Ogmios (its Utxo). */
  readonly evaluate: (
    cborHex: string,
    additionalUtxo?: ReadonlyArray<OgmiosUtxoEntry>,
  ) => Effect.Effect<ReadonlyArray<RedeemerBudget>, E.LedgerRejection | SqlError>;
  /** Writes the next block now with what the mempool holds. */
  readonly produceBlock: Effect.Effect<WrittenBlock, SqlError>;
  /** Produces blocks every `blockIntervalMs` until the scope closes. */
  readonly start: Effect.Effect<void, never, Scope.Scope>;
  /** Every block written from now on (chain-sync subscribers). */
  readonly subscribe: Effect.Effect<Queue.Dequeue<WrittenBlock>, never, Scope.Scope>;
  readonly mempool: () => ReadonlyArray<string>;
  /** Submissions waiting for room in the mempool, oldest first. */
  readonly waiting: () => ReadonlyArray<string>;
  /** For the metrics: the mempool now and what block production has done since the start. */
  readonly stats: () => DevnetStats;
}

export interface DevnetStats {
  readonly mempoolTransactions: number;
  /** The mempool's transactions' sizes together (block_capacity.ts' measure). */
  readonly mempoolBytes: number;
  readonly waitingSubmissions: number;
  readonly blocksProduced: number;
  /** Transactions dropped from the mempool, by why: `isolation` (their block could not be written with them),
   * `expired` (validity interval over) and `orphaned` (they spent outputs of a dropped one). */
  readonly dropped: Readonly<Record<"isolation" | "expired" | "orphaned", number>>;
}

const reject = (error: E.OgmiosError) => Effect.fail(new E.LedgerRejection({ error }));

export const makeDevnet = (sql: SqlClient, config: DevnetConfig): Effect.Effect<Devnet, SqlError> =>
  Effect.gen(function* () {
    const net = demoNetworks[config.network];
    const spentTracking = config.spentTracking ?? "enable";
    const time = makeChainTime(yield* readEpochAnchor(sql));
    const slots: SlotConfig = {
      zeroTimeMs: time.slotToTime(0).getTime(),
      zeroSlot: 0,
      slotLengthMs,
    };
    const params = yield* Ref.make<LedgerParams>(yield* readLedgerParams(sql));
    const mempool = new Mempool();
    const lock = yield* Effect.makeSemaphore(1);
    const blocks = yield* PubSub.unbounded<WrittenBlock>();
    const seed = yield* Effect.promise(() => loadOrCreateSeed(config.dataDir));
    const wallets = deriveWallets(seed, config.network, net.networkId);
    const currentSlot = Effect.map(time.now, (n) => n.slot);

    const funded = yield* fundWallets(sql, wallets, {
      networkId: net.networkId,
      slot: yield* currentSlot,
      params: yield* Ref.get(params),
    }).pipe(Effect.annotateLogs("network", config.network));
    if (funded) yield* Ref.set(params, yield* readLedgerParams(sql));

    const view = Effect.gen(function* () {
      return makeLedgerView(sql, {
        networkId: net.networkId,
        spentTracking,
        slot: yield* currentSlot,
        params: yield* Ref.get(params),
        pending: mempool.pending,
      });
    });

    const admission = makeAdmissionQueue();
    let blocksProduced = 0;
    const droppedSoFar = { isolation: 0, expired: 0, orphaned: 0 };
    /** Completed (and replaced) whenever a block takes transactions out of the mempool. */
    let roomMade = Deferred.unsafeMake<void>(FiberId.none);

    /** Phase 1 and 2, then into the mempool; the caller holds the lock and has made sure it fits. */
    const validateAndAdd = (decoded: DecodedTransaction, ledger: LedgerView) =>
      Effect.gen(function* () {
        const checked = yield* validatePhase1(decoded, ledger);
        if (Either.isLeft(checked)) return yield* reject(checked.left);
        const accepted = checked.right;
        const scripts = scriptsOutcome(accepted, yield* Ref.get(params), slots);
        if (Either.isLeft(scripts)) return yield* reject(scripts.left);
        const scriptsValid = scripts.right;
        mempool.add({ accepted, scriptsValid });
        return { transaction: { id: accepted.id } };
      });

    /**
     * One try by the submitter whose turn it is, as the node's mempool makes it: the per-transaction limits
     * (answered at once), then room (undefined: none yet), then the rules against the mempool as it is now. Once
     * begun it is not interrupted: a client gone at that moment may still have its transaction added, as with a
     * node; only the waiting ends with it.
     */
    const tryAdd = (decoded: DecodedTransaction) =>
      lock.withPermits(1)(Effect.uninterruptible(Effect.gen(function* () {
        const p = yield* Ref.get(params);
        const body = decoded.tx.body();
        const carriers = [...listOf(body.inputs()), ...listOf(body.reference_inputs())];
        // one view for the measure and the rules, so each input is read once (collateral too, in the same query);
        // inputs not found carry nothing here; the rules answer for them
        const ledger = yield* view;
        const resolved = yield* ledger.resolve([...carriers, ...listOf(body.collateral_inputs())]);
        const measure = measureTx(decoded.tx, referenceScriptsSize(carriers, resolved));
        const overLimit = txLimitsFailure(measure, p);
        if (overLimit) return yield* reject(overLimit);
        const capacity = mempoolCapacity(p);
        if (!within(measure, capacity)) {
          // the ledger's limits keep a transaction well within an empty mempool; a node would wait forever
          return yield* reject(E.unexpectedMempoolError("the transaction is larger than the whole mempool"));
        }
        if (!within(addMeasures(mempool.measure, measure), capacity)) return undefined;
        return yield* validateAndAdd(decoded, ledger);
      })));

    const submit = (cborHex: string) =>
      Effect.gen(function* () {
        const decoded = decodeForSubmission(cborHex);
        if (Either.isLeft(decoded)) return yield* reject(decoded.left);
        const unstorable = unstorableText(decoded.right.tx);
        if (unstorable) return yield* reject(unstorable);
        const id = decoded.right.id;
        return yield* admission.inTurn(id, tryAdd(decoded.right), () =>
          roomMade, (what, ahead) =>
          what === "abandoned"
            ? Effect.logInfo(
              `devnet ${config.network}: submission ${id} abandoned while waiting (its client left)`,
            )
            : Effect.logDebug(
              what === "queued"
                ? `devnet ${config.network}: submission ${id} waits its turn (${ahead} ahead)`
                : `devnet ${config.network}: submission ${id} waits for room in the mempool`,
            ));
      }).pipe(
        // a transaction CML decodes but cannot otherwise handle is refused, never an exception escaping
        Effect.catchAllDefect((defect) =>
          reject(E.unexpectedMempoolError(String(defect)))
        ),
      );

    const evaluate = (cborHex: string, additionalUtxo: ReadonlyArray<OgmiosUtxoEntry> = []) =>
      Effect.flatMap(
        Ref.get(params),
        (p) => evaluateTransaction(cborHex, additionalUtxo, { view, params: p, slots }),
      );

    const produceBlock = lock.withPermits(1)(Effect.gen(function* () {
      const p = yield* Ref.get(params);
      const slot = yield* currentSlot;
      const txs: ReadonlyArray<BlockTx> = mempool.next(blockCapacity(p));
      const expired = expiredBefore(txs, slot);
      const dropped = new Set(expired);
      const { block, refused } = yield* writeBlockIsolating(
        sql,
        txs.filter((t) => !dropped.has(t.accepted.id)),
        { networkId: net.networkId, slot, params: p },
      ).pipe(Effect.annotateLogs("network", config.network));
      const before = mempool.ids();
      mempool.remove(block.txIds, [...expired, ...refused.map((r) => r.id)]);
      // its submitter was answered when it entered the mempool (as a node answers): the log is all there is
      for (const r of refused) {
        yield* Effect.logWarning(
          `devnet ${config.network}: transaction ${r.id} dropped from the mempool, its block could not be ` +
            `written with it: ${r.reason}`,
        );
      }
      const named = new Set([...block.txIds, ...expired, ...refused.map((r) => r.id)]);
      const left = new Set(mempool.ids());
      const orphaned = before.filter((id) => !named.has(id) && !left.has(id));
      blocksProduced++;
      droppedSoFar.isolation += refused.length;
      droppedSoFar.expired += expired.length;
      droppedSoFar.orphaned += orphaned.length;
      for (const id of orphaned) {
        yield* Effect.logWarning(
          `devnet ${config.network}: transaction ${id} dropped from the mempool: it spends outputs of a ` +
            "dropped transaction",
        );
      }
      if (block.epoch !== p.epoch) yield* Ref.set(params, yield* readLedgerParams(sql));
      const made = roomMade;
      roomMade = Deferred.unsafeMake<void>(FiberId.none);
      Deferred.unsafeDone(made, Exit.void);
      yield* PubSub.publish(blocks, block);
      return block;
    }));

    const interval = Duration.millis(config.blockIntervalMs ?? 3_000);
    const start = Effect.asVoid(Effect.forkScoped(
      produceBlock.pipe(
        // whatever fails (a defect too), the next block is tried at the next interval
        Effect.catchAllCause((cause) =>
          Effect.logError(`devnet ${config.network}: block production failed`, cause)
        ),
        Effect.repeat(Schedule.spaced(interval)),
        Effect.delay(interval),
      ),
    ));

    return {
      network: config.network,
      wallets: wallets.map(({ address, signingKey }) => ({ address, signingKey })),
      submit,
      evaluate,
      produceBlock,
      start,
      subscribe: PubSub.subscribe(blocks),
      mempool: () => mempool.ids(),
      waiting: admission.waiting,
      stats: () => ({
        mempoolTransactions: mempool.size,
        mempoolBytes: mempool.measure.bytes,
        waitingSubmissions: admission.waiting().length,
        blocksProduced,
        dropped: { ...droppedSoFar },
      }),
    };
  });
