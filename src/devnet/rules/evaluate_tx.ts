/**
 * Ogmios `evaluateTransaction` on the devnet: the execution units each redeemer needs, against the ledger (plus
 * the mempool) and the caller's `additionalUtxo`, which may not repeat an output the ledger has. Inputs found
 * nowhere fail as Ogmios reports them, under the first redeemer.
 */
import type { SqlError } from "@effect/sql/SqlError";
import { Effect, Either } from "effect";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { type OgmiosUtxoEntry, outputFromOgmios, refKey } from "../decoding/cml_conversions.ts";
import { decodeTransaction } from "../decoding/decode_tx.ts";
import { redeemerEntries } from "../decoding/tx_parts.ts";
import * as E from "../errors.ts";
import type { LedgerParams, LedgerView } from "./ledger_view.ts";
import { evaluateScripts, type RedeemerBudget, type SlotConfig } from "./phase2.ts";

const reject = (error: E.OgmiosError) => Effect.fail(new E.LedgerRejection({ error }));

/** The caller's additional UTxO as CML outputs by reference, or the entry that is not a valid output. */
const additionalOutputs = (entries: ReadonlyArray<OgmiosUtxoEntry>) =>
  Effect.gen(function* () {
    const outputs = new Map<string, CML.TransactionOutput>();
    const inputs: Array<CML.TransactionInput> = [];
    for (const entry of entries) {
      const parsed = Either.try(() => ({
        input: CML.TransactionInput.new(
          CML.TransactionHash.from_hex(entry.transaction.id),
          BigInt(entry.index),
        ),
        output: outputFromOgmios(entry),
      }));
      if (Either.isLeft(parsed)) {
        return yield* reject(E.cannotCreateEvaluationContext(
          `additional UTxO entry ${JSON.stringify(entry.transaction?.id)}#${entry.index} is not a valid ` +
            `output: ${String(parsed.left)}`,
        ));
      }
      outputs.set(refKey(entry.transaction.id, entry.index), parsed.right.output);
      inputs.push(parsed.right.input);
    }
    return { outputs, inputs };
  });

export const evaluateTransaction = (
  cborHex: string,
  additionalUtxo: ReadonlyArray<OgmiosUtxoEntry>,
  context: {
    readonly view: Effect.Effect<LedgerView, SqlError>;
    readonly params: LedgerParams;
    readonly slots: SlotConfig;
  },
): Effect.Effect<ReadonlyArray<RedeemerBudget>, E.LedgerRejection | SqlError> =>
  Effect.gen(function* () {
    const decoded = decodeTransaction(cborHex);
    if (Either.isLeft(decoded)) return yield* reject(decoded.left);
    const { tx } = decoded.right;
    const body = tx.body();
    const refs = [body.inputs(), body.collateral_inputs(), body.reference_inputs()].flatMap((list) =>
      list ? Array.from({ length: list.len() }, (_, i) => list.get(i)) : []
    );
    const resolved = yield* (yield* context.view).resolve(refs);
    const additional = yield* additionalOutputs(additionalUtxo);
    const onLedger = yield* (yield* context.view).resolve(additional.inputs);
    const extra = [...additional.outputs.keys()].filter((k) => onLedger.has(k));
    if (extra.length > 0) {
      return yield* reject(E.overlappingAdditionalUtxo(extra.map((k) => {
        const [id, index] = k.split("#");
        return { transaction: { id: id! }, index: Number(index) };
      })));
    }
    for (const [k, o] of additional.outputs) resolved.set(k, o);
    const unknown = refs.filter((r) => !resolved.has(refKey(r.transaction_id().to_hex(), r.index())));
    const first = redeemerEntries(tx.witness_set().redeemers())[0];
    if (unknown.length > 0) {
      return yield* reject(E.scriptExecutionFailure([{
        validator: first ? { purpose: first.purpose, index: first.index } : { purpose: "spend", index: 0 },
        error: E.unknownOutputReferences(
          unknown.map((r) => ({
            transaction: { id: r.transaction_id().to_hex() },
            index: Number(r.index()),
          })),
        ),
      }]));
    }
    if (!first) return [];
    const evaluated = evaluateScripts(tx, resolved, context.params, context.slots);
    return Either.isLeft(evaluated) ? yield* reject(evaluated.left) : evaluated.right;
  }).pipe(
    Effect.catchAllDefect((defect) => reject(E.cannotCreateEvaluationContext(String(defect)))),
  );
