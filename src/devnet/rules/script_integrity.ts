/**
 * The script integrity hash (`script_data_hash`) as the Conway ledger computes it: blake2b-256 of the
 * redeemers and the datums exactly as the witness set encodes them, then the language views of the Plutus
 * languages the transaction uses. Original bytes matter: a Conway set of datums carries tag 258 and may be an
 * indefinite list, which CML's re-encoded `PlutusDataList` loses (and CML's from-witness variant skips
 * transactions without redeemers and orders mixed V1/V2 views differently from the ledger).
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { blake2b } from "@noble/hashes/blake2.js";
import { hex } from "@scure/base";
import { CborError, readCbor } from "../decoding/cbor_reader.ts";

/** A transaction's witness set as submitted: the second item of `[body, witnesses, isValid, auxiliary]`. */
export const witnessSetBytes = (tx: Uint8Array): Uint8Array => {
  const item = readCbor(tx);
  const witnesses = item.kind === "array" ? item.items[1] : undefined;
  if (!witnesses) throw new CborError("a transaction is an array of at least two items");
  return tx.subarray(witnesses.start, witnesses.end);
};

/** The encoded value under `key` in a CBOR map with unsigned keys (a witness set), as it was written. */
export const mapField = (map: Uint8Array, key: number): Uint8Array | undefined => {
  const item = readCbor(map);
  if (item.kind !== "map") throw new CborError("a witness set is a map");
  const value = item.entries.find(([k]) => k.kind === "uint" && k.value === BigInt(key))?.[1];
  return value && map.subarray(value.start, value.end);
};

/** A CBOR integer head of the given major type, shortest form. */
const head = (major: number, n: bigint): Array<number> => {
  const m = major << 5;
  if (n < 24n) return [m | Number(n)];
  const size = n < 0x100n ? 1 : n < 0x10000n ? 2 : n < 0x100000000n ? 4 : 8;
  const out = [m | (24 + Math.log2(size))];
  for (let i = size - 1; i >= 0; i--) out.push(Number((n >> BigInt(8 * i)) & 0xffn));
  return out;
};
const int = (n: bigint) => (n < 0n ? head(1, -1n - n) : head(0, n));

/**
 * Language views, sorted by the shortest encoded key first as the ledger's encodeLangViews does (V2 `01`, V3
 * `02`, then V1 `41 00`). PlutusV1 keeps Alonzo's quirk: its key is the language id as a CBOR byte string and
 * its value the cost model as an indefinite list wrapped in a byte string.
 */
const languageViews = (languages: ReadonlyArray<CML.Language>, costModels: CML.CostModels): Array<number> => {
  const models = costModels.inner();
  const views = [...new Set(languages)].map((language) => {
    const costs = [...(models.get(BigInt(language)) ?? [])].map(BigInt);
    if (language === CML.Language.PlutusV1) {
      const list = [0x9f, ...costs.flatMap(int), 0xff];
      return { key: [0x41, 0x00], value: [...head(2, BigInt(list.length)), ...list] };
    }
    return { key: int(BigInt(language)), value: [...head(4, BigInt(costs.length)), ...costs.flatMap(int)] };
  }).sort((a, b) => a.key.length - b.key.length || a.key[0]! - b.key[0]!);
  return [...head(5, BigInt(views.length)), ...views.flatMap((v) => [...v.key, ...v.value])];
};

/**
 * The hash a transaction must declare, or null when it needs none (no redeemers, datums or Plutus languages).
 * `witnessSet` is the witness set's CBOR as submitted (`witnessSetBytes`).
 */
export const scriptIntegrityHash = (
  witnessSet: Uint8Array,
  languages: ReadonlyArray<CML.Language>,
  costModels: CML.CostModels,
): string | null => {
  const redeemers = mapField(witnessSet, 5);
  const datums = mapField(witnessSet, 4);
  if (!redeemers && !datums && languages.length === 0) return null;
  const preimage = new Uint8Array([
    ...(redeemers ?? [0xa0]), // no redeemers: an empty (Conway map) redeemers
    ...(datums ?? []), // no datums: nothing at all
    ...languageViews(languages, costModels),
  ]);
  return hex.encode(blake2b(preimage, { dkLen: 32 }));
};
