/**
 * Reading a Blockfrost evaluation request (schemas/blockfrost/utils.ts) into what the evaluation program takes:
 * the transaction's CBOR in hex, and the extra UTxOs as Ogmios v6 Utxo entries (the NodeClient's shape), v5.6's
 * `[TxIn, TxOut]` pairs converted entry by entry. The transaction may come as raw bytes, hex or base64, as
 * Blockfrost accepts it. Whatever does not read is an `InvalidParameter` naming where (the dialect's 400).
 */
import { Either } from "effect";
import { base64, hex } from "@scure/base";
import {
  EvaluateUtxosBody,
  type NativeScriptV5,
  TxOutV5,
  UtxoV5,
  UtxoV6,
} from "@schemas/blockfrost/utils.ts";
import { InvalidParameter } from "@src/domain/errors.ts";
import { parseExact } from "@src/domain/json.ts";
import { decodeAt } from "@src/http/decode_parameters.ts";
import type { TransactionToEvaluate } from "@src/programs/evaluate_transaction.ts";

const hexText = /^(?:[0-9a-fA-F]{2})+$/;
const base64Text = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const cborHint = "the transaction's CBOR, as raw bytes or as hex (base16) or base64 text";

/** A transaction given as hex or base64 text, in hex; hex wins where both read (Ogmios does the same). */
const cborFromText = (text: string, parameter: string): Either.Either<string, InvalidParameter> => {
  const trimmed = text.trim();
  if (hexText.test(trimmed)) return Either.right(trimmed.toLowerCase());
  if (trimmed.length > 0 && base64Text.test(trimmed)) return Either.right(hex.encode(base64.decode(trimmed)));
  return Either.left(new InvalidParameter({ parameter, reason: `must be ${cborHint}` }));
};

/** `/utils/txs/evaluate`'s body: raw CBOR (a transaction is a CBOR array: its first byte is 0x80-0x9f), else text. */
export const transactionFromBody = (
  bytes: Uint8Array,
): Either.Either<TransactionToEvaluate, InvalidParameter> => {
  if (bytes.length === 0) {
    return Either.left(new InvalidParameter({ parameter: "body", reason: `is empty: send ${cborHint}` }));
  }
  if (bytes[0]! >= 0x80 && bytes[0]! <= 0x9f) return Either.right({ cbor: hex.encode(bytes) });
  return Either.map(cborFromText(new TextDecoder().decode(bytes), "body"), (cbor) => ({ cbor }));
};

/** Ogmios v5.6's native script in v6's clause JSON. */
const nativeToV6 = (s: NativeScriptV5): unknown => {
  if (typeof s === "string") return { clause: "signature", from: s.toLowerCase() };
  if ("all" in s) return { clause: "all", from: s.all.map(nativeToV6) };
  if ("any" in s) return { clause: "any", from: s.any.map(nativeToV6) };
  if ("expiresAt" in s) return { clause: "before", slot: s.expiresAt };
  if ("startsAt" in s) return { clause: "after", slot: s.startsAt };
  const [[n, from]] = Object.entries(s.NOf) as [[string, ReadonlyArray<NativeScriptV5>]];
  return { clause: "some", atLeast: Number(n), from: from.map(nativeToV6) };
};

const policyAndName = /^([0-9a-fA-F]{56})(?:\.?((?:[0-9a-fA-F]{2}){0,32}))$/;

/** A v5.6 value (`coins`, `assets` keyed `policy` or `policy.name`) as v6's `{ada: {lovelace}, policy: {name: n}}`. */
const valueToV6 = (
  value: typeof TxOutV5.Type["value"],
  where: string,
): Either.Either<Record<string, Record<string, bigint>>, InvalidParameter> => {
  const out: Record<string, Record<string, bigint>> = { ada: { lovelace: value.coins } };
  for (const [unit, quantity] of Object.entries(value.assets ?? {})) {
    const m = policyAndName.exec(unit);
    if (!m) {
      return Either.left(
        new InvalidParameter({
          parameter: `${where}.value.assets`,
          reason: `has "${unit}": an asset is its policy id (56 hex digits), then "." and its hex name`,
        }),
      );
    }
    const policy = (out[m[1]!.toLowerCase()] ??= {});
    policy[(m[2] ?? "").toLowerCase()] = quantity;
  }
  return Either.right(out);
};

const v5ToV6 = (
  [txIn, txOut]: typeof UtxoV5.Type,
  where: string,
): Either.Either<Record<string, unknown>, InvalidParameter> =>
  Either.map(valueToV6(txOut.value, `${where}.1`), (value) => {
    const datumHash = txOut.datumHash ?? txOut.datum_hash;
    const script = txOut.script;
    return {
      transaction: { id: txIn.txId.toLowerCase() },
      index: txIn.index,
      address: txOut.address,
      value,
      ...(datumHash ? { datumHash: datumHash.toLowerCase() } : {}),
      ...(txOut.datum ? { datum: txOut.datum.toLowerCase() } : {}),
      ...(!script
        ? {}
        : "native" in script
        ? { script: { language: "native", json: nativeToV6(script.native) } }
        : {
          script:
            Object.entries(script).map(([language, cbor]) => ({ language, cbor: cbor.toLowerCase() }))[0],
        }),
    };
  });

/** A v6 entry as the node takes it: its nulls dropped (Lucid sends `script: null`). */
const v6Entry = (u: typeof UtxoV6.Type): Record<string, unknown> => ({
  transaction: { id: u.transaction.id.toLowerCase() },
  index: u.index,
  address: u.address,
  value: u.value,
  ...(u.datumHash ? { datumHash: u.datumHash.toLowerCase() } : {}),
  ...(u.datum ? { datum: u.datum.toLowerCase() } : {}),
  ...(u.script ? { script: u.script } : {}),
});

/** One extra UTxO, in whichever shape it came: an array is a v5.6 pair, an object a v6 entry. */
const entryToV6 = (entry: unknown, i: number): Either.Either<Record<string, unknown>, InvalidParameter> => {
  const where = `additionalUtxoSet.${i}`;
  const prefixed = (e: InvalidParameter) =>
    new InvalidParameter({
      parameter: e.parameter === "entry" ? where : `${where}.${e.parameter}`,
      reason: e.reason,
    });
  if (Array.isArray(entry)) {
    return Either.flatMap(
      Either.mapLeft(decodeAt(UtxoV5, entry, "entry"), prefixed),
      (pair) => v5ToV6(pair, where),
    );
  }
  if (typeof entry === "object" && entry !== null) {
    return Either.map(Either.mapLeft(decodeAt(UtxoV6, entry, "entry"), prefixed), v6Entry);
  }
  return Either.left(
    new InvalidParameter({
      parameter: where,
      reason: "must be a [{txId, index}, {address, value, …}] pair (Ogmios v5.6) or a " +
        "{transaction: {id}, index, address, value, …} entry (Ogmios v6)",
    }),
  );
};

/** `/utils/txs/evaluate/utxos`'s JSON body. */
export const transactionFromJson = (text: string): Either.Either<TransactionToEvaluate, InvalidParameter> => {
  let parsed: unknown;
  try {
    parsed = parseExact(text);
  } catch {
    return Either.left(
      new InvalidParameter({ parameter: "body", reason: "is not JSON: send {cbor, additionalUtxoSet?}" }),
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return Either.left(
      new InvalidParameter({ parameter: "body", reason: "must be a JSON object {cbor, additionalUtxoSet?}" }),
    );
  }
  // Blaze's Blockfrost provider (@blaze-cardano/query 0.x) spells it `additionalUtxoset`
  const raw = parsed as { additionalUtxoSet?: unknown; additionalUtxoset?: unknown };
  // the entries are read one by one below, each by its own shape (precise messages)
  const shell = decodeAt(
    EvaluateUtxosBody,
    { ...raw, additionalUtxoSet: undefined, additionalUtxoset: undefined },
    "body",
  );
  if (Either.isLeft(shell)) return Either.left(shell.left);
  const cbor = cborFromText(shell.right.cbor, "cbor");
  if (Either.isLeft(cbor)) return Either.left(cbor.left);
  const set = raw.additionalUtxoSet ?? raw.additionalUtxoset;
  if (set === undefined || set === null) return Either.right({ cbor: cbor.right });
  if (!Array.isArray(set)) {
    return Either.left(new InvalidParameter({ parameter: "additionalUtxoSet", reason: "must be an array" }));
  }
  const entries: Array<Record<string, unknown>> = [];
  for (const [i, entry] of set.entries()) {
    const converted = entryToV6(entry, i);
    if (Either.isLeft(converted)) return Either.left(converted.left);
    entries.push(converted.right);
  }
  return Either.right({ cbor: cbor.right, additionalUtxo: entries });
};
