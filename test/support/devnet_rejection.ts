/**
 * Submitting to the devnet in rule tests: a deliberately broken transaction must come back as the expected
 * Ogmios error (code, and a shape ogmios.json accepts) with the UTxO set and the mempool exactly as before; a
 * good one must be accepted.
 */
import assert from "node:assert/strict";
import type * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { Effect, Either } from "effect";
import type { LedgerRejection, OgmiosError } from "@src/devnet/errors.ts";
import { assertMatchesOgmiosSchema } from "./ogmios_schema.ts";
import { type DevnetFixture, submit, walletUtxos } from "./devnet_tx.ts";

/** Ogmios errors carry bigints (exact JSON numbers); ajv checks plain JSON. */
export const plainJson = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? Number(v) : v)));

/** The unspent outputs of the wallets and of any other addresses the test watches, and the mempool. */
const snapshot = async (f: DevnetFixture, watched: ReadonlyArray<string>) => ({
  utxos: (await Promise.all([...f.keys.map((k) => k.address), ...watched].map((a) => walletUtxos(f, a))))
    .flat().map((u) => `${u.input.transaction_id().to_hex()}#${u.input.index()}`).sort(),
  mempool: [...f.devnet.mempool()],
});

export const expectRejection = async (
  f: DevnetFixture,
  tx: CML.Transaction | string,
  code: number,
  watched: ReadonlyArray<string> = [],
): Promise<OgmiosError> => {
  const before = await snapshot(f, watched);
  const result = typeof tx === "string"
    ? await Effect.runPromise(Effect.either(f.devnet.submit(tx)))
    : await submit(f, tx);
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

/** Submits and asserts acceptance; returns the transaction id. */
export const expectAccepted = async (f: DevnetFixture, tx: CML.Transaction | string): Promise<string> => {
  const result = typeof tx === "string"
    ? await Effect.runPromise(Effect.either(f.devnet.submit(tx)))
    : await submit(f, tx);
  assert.ok(
    Either.isRight(result),
    `expected acceptance: ${JSON.stringify(Either.isLeft(result) ? plainJson(result.left) : null)}`,
  );
  return result.right.transaction.id;
};

/** `expectRejection` and `expectAccepted` bound to one fixture (and the addresses whose UTxOs it watches). */
export const makeExpectRejection =
  (f: DevnetFixture, watched: ReadonlyArray<string> = []) => (tx: CML.Transaction, code: number) =>
    expectRejection(f, tx, code, watched);
export const makeAccept = (f: DevnetFixture) => (tx: CML.Transaction) => expectAccepted(f, tx);

export const produceBlock = (f: DevnetFixture) => Effect.runPromise(f.devnet.produceBlock);
