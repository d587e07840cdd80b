/**
 * Transactions CML refuses to decode but the ledger decodes, then refuses by a rule: CML bounds metadata strings
 * and pool metadata hashes in its decoder, the ledger in its rules (InvalidMetadata 3108, a metadata text or
 * bytes over 64 bytes; PoolMedataHashTooBig 3144, a pool metadata hash over 32 bytes). When CML fails, the
 * submitted bytes are read with a plain CBOR reader; if the only obstacle is such a field (CML decodes the
 * transaction once it is replaced by a harmless one), the answer is that rule's error, as a node's.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { hex } from "@scure/base";
import { Either } from "effect";
import { type CborItem, readCbor } from "./cbor_reader.ts";
import { type DecodedTransaction, decodeTransaction } from "./decode_tx.ts";
import * as E from "../errors.ts";

const maxMetadatumBytes = 64;
const maxPoolMetadataHashBytes = 32;

const entry = (map: CborItem, key: number): CborItem | undefined =>
  map.kind === "map"
    ? map.entries.find(([k]) => k.kind === "uint" && k.value === BigInt(key))?.[1]
    : undefined;

/** A tag-258 set or a plain array: its elements. */
const elements = (item: CborItem | undefined): ReadonlyArray<CborItem> => {
  const inner = item?.kind === "tag" && item.tag === 258n ? item.item : item;
  return inner?.kind === "array" ? inner.items : [];
};

const validMetadatum = (m: CborItem): boolean => {
  switch (m.kind) {
    case "bytes":
    case "text":
      return m.value.length <= maxMetadatumBytes;
    case "array":
      return m.items.every(validMetadatum);
    case "map":
      return m.entries.every(([k, v]) => validMetadatum(k) && validMetadatum(v));
    default:
      return true;
  }
};

/** The metadata map of auxiliary data in any era's shape (Shelley map, Allegra array, Alonzo tag 259). */
const metadataOf = (auxiliary: CborItem): CborItem | undefined => {
  if (auxiliary.kind === "map") return auxiliary;
  if (auxiliary.kind === "array") return auxiliary.items[0];
  if (auxiliary.kind === "tag" && auxiliary.tag === 259n) return entry(auxiliary.item, 0);
  return undefined;
};

const splice = (bytes: Uint8Array, item: CborItem, replacement: ReadonlyArray<number>) =>
  new Uint8Array([...bytes.subarray(0, item.start), ...replacement, ...bytes.subarray(item.end)]);

const decodes = (bytes: Uint8Array) => {
  try {
    CML.Transaction.from_cbor_bytes(bytes);
    return true;
  } catch {
    return false;
  }
};

/** The rule the ledger would refuse these (CML-undecodable) bytes by, if that is their only problem. */
export const refusedByRule = (bytes: Uint8Array): E.OgmiosError | undefined => {
  let tx: CborItem;
  try {
    tx = readCbor(bytes);
  } catch {
    return undefined;
  }
  if (tx.kind !== "array" || tx.end !== bytes.length) return undefined;
  const [body, , , auxiliary] = tx.items;
  const metadata = auxiliary && metadataOf(auxiliary);
  if (auxiliary && metadata && !validMetadatum(metadata) && decodes(splice(bytes, auxiliary, [0xf6]))) {
    return E.invalidMetadata();
  }
  for (const cert of elements(body && entry(body, 4))) {
    if (cert.kind !== "array" || cert.items[0]?.kind !== "uint" || cert.items[0].value !== 3n) continue;
    const [, operator] = cert.items;
    const hash = cert.items[9]?.kind === "array" ? cert.items[9].items[1] : undefined;
    if (hash?.kind !== "bytes" || hash.value.length <= maxPoolMetadataHashBytes) continue;
    if (operator?.kind !== "bytes" || operator.value.length !== 28) continue;
    if (!decodes(splice(bytes, hash, [0x58, 32, ...new Uint8Array(32)]))) continue;
    return E.poolMetadataHashTooLarge(
      CML.Ed25519KeyHash.from_raw_bytes(operator.value).to_bech32("pool"),
      hash.value.length,
    );
  }
  return undefined;
};

/** decodeTransaction, answering a node's rule instead of -32602 where the ledger decodes what CML cannot. */
export const decodeForSubmission = (cborHex: string): Either.Either<DecodedTransaction, E.OgmiosError> => {
  const decoded = decodeTransaction(cborHex);
  if (Either.isRight(decoded) || !/^(?:[0-9a-fA-F]{2})+$/.test(cborHex)) return decoded;
  const refused = refusedByRule(hex.decode(cborHex.toLowerCase()));
  return refused ? Either.left(refused) : decoded;
};
