/**
 * Submitting a deliberately broken transaction to a devnet fixture: it must be refused with the expected Ogmios
 * code, in the shape ogmios.json's SubmitTransactionResponse allows, and leave the UTxO set (of the wallets and
 * any other addresses the test watches) and the mempool exactly as they were.
 */
import assert from "node:assert/strict";
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { Effect, Either } from "effect";
import type { LedgerRejection, OgmiosError } from "@src/devnet/errors.ts";
import { assertMatchesOgmiosSchema } from "./ogmios_schema.ts";
import { type DevnetFixture, submit, walletUtxos } from "./devnet_tx.ts";

/** Ogmios errors carry bigints (exact JSON numbers); ajv checks plain JSON. */
export const plainJson = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? Number(v) : v)));

const snapshot = async (f: DevnetFixture, watched: ReadonlyArray<string>) => ({
  utxos: (await Promise.all([...f.keys.map((k) => k.address), ...watched].map((a) => walletUtxos(f, a))))
    .flat().map((u) => `${u.input.transaction_id().to_hex()}#${u.input.index()}`).sort(),
  mempool: [...f.devnet.mempool()],
});

export const makeExpectRejection =
  (f: DevnetFixture, watched: ReadonlyArray<string> = []) =>
  async (tx: CML.Transaction, code: number): Promise<OgmiosError> => {
    const before = await snapshot(f, watched);
    const result = await submit(f, tx);
    assert.ok(Either.isLeft(result), `expected error ${code}, the transaction was accepted`);
    const error = (result.left as LedgerRejection).error;
    assert.equal(error.code, code, `expected ${code}, got ${JSON.stringify(plainJson(error))}`);
    await assertMatchesOgmiosSchema(
      "ogmios.json#/properties/SubmitTransactionResponse",
      plainJson({ jsonrpc: "2.0", method: "submitTransaction", error, id: null }),
    );
    assert.deepEqual(await snapshot(f, watched), before, "the UTxO set and mempool are unchanged");
    return error;
  };

export const makeAccept = (f: DevnetFixture) => async (tx: CML.Transaction): Promise<string> => {
  const result = await submit(f, tx);
  assert.ok(Either.isRight(result), JSON.stringify(Either.isLeft(result) ? plainJson(result.left) : null));
  return result.right.transaction.id;
};

export const produceBlock = (f: DevnetFixture) => Effect.runPromise(f.devnet.produceBlock);
