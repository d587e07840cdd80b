/**
 * Whether a Plutus script deserialises as the ledger requires (plutus-ledger-api's assertScriptWellFormed),
 * for MalformedScripts (3116): a CBOR byte string (nothing after it for V3) holding a flat-encoded UPLC program
 * of a version the language allows (1.0.0; V3 also 1.1.0, which alone has constr and case), using only the
 * builtins available to the language at the protocol version, its constants well-typed, the padding ending
 * the bytes exactly. Free variables are not a decoding matter (they fail when run).
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { readCbor } from "../decoding/cbor_reader.ts";

export type PlutusLanguage = "plutus:v1" | "plutus:v2" | "plutus:v3";

/** Builtin ids (UPLC's flat tags) available per language, by the protocol version that introduced them. */
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const introduced: ReadonlyArray<
  { language: PlutusLanguage; major: number; builtins: ReadonlyArray<number> }
> = [
  { language: "plutus:v1", major: 5, builtins: range(0, 50) },
  { language: "plutus:v2", major: 7, builtins: [51] }, // serialiseData
  { language: "plutus:v2", major: 8, builtins: [52, 53] }, // ECDSA and Schnorr secp256k1
  { language: "plutus:v2", major: 10, builtins: [73, 74] }, // integer <-> bytestring
  { language: "plutus:v3", major: 9, builtins: range(54, 74) }, // BLS12-381, keccak, blake2b-224, conversions
  { language: "plutus:v3", major: 10, builtins: range(75, 86) }, // bitwise operations, ripemd-160
];
const order: Record<PlutusLanguage, number> = { "plutus:v1": 1, "plutus:v2": 2, "plutus:v3": 3 };

const availableBuiltins = (language: PlutusLanguage, major: number): ReadonlySet<number> =>
  new Set(
    introduced.filter((i) => order[i.language] <= order[language] && i.major <= major).flatMap((i) =>
      i.builtins
    ),
  );

class Malformed extends Error {}

/** Flat's bit stream: most significant bit first. */
class Bits {
  private at = 0;
  constructor(private readonly bytes: Uint8Array) {}

  bit(): number {
    const byte = this.bytes[this.at >> 3];
    if (byte === undefined) throw new Malformed("out of bits");
    const b = (byte >> (7 - (this.at & 7))) & 1;
    this.at++;
    return b;
  }

  bits(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) v = (v << 1) | this.bit();
    return v;
  }

  /** 7-bit groups, least significant first, each after a continuation bit. */
  natural(): bigint {
    let value = 0n, shift = 0n, more = 1;
    while (more) {
      more = this.bit();
      value |= BigInt(this.bits(7)) << shift;
      shift += 7n;
    }
    return value;
  }

  /** Zero bits up to a one bit, which ends a byte. */
  filler(): void {
    while (this.bit() === 0) { /* padding */ }
    if ((this.at & 7) !== 0) throw new Malformed("filler not byte-aligned");
  }

  byteString(): Uint8Array {
    this.filler();
    const out: Array<number> = [];
    for (let n = this.bits(8); n > 0; n = this.bits(8)) {
      for (let i = 0; i < n; i++) out.push(this.bits(8));
    }
    return new Uint8Array(out);
  }

  get atEnd(): boolean {
    return this.at === this.bytes.length * 8;
  }
}

type Type =
  | { readonly t: "integer" | "bytestring" | "string" | "unit" | "bool" | "data" }
  | { readonly t: "list"; readonly of: Type }
  | { readonly t: "pair"; readonly a: Type; readonly b: Type };

const maxTypeDepth = 256;
const word64 = (n: bigint) => {
  if (n >= 1n << 64n) throw new Malformed("beyond a 64-bit word");
};

const readType = (tags: Array<number>, depth = 0): Type => {
  if (depth > maxTypeDepth) throw new Malformed("type nested too deeply");
  const tag = tags.shift();
  switch (tag) {
    case 0:
      return { t: "integer" };
    case 1:
      return { t: "bytestring" };
    case 2:
      return { t: "string" };
    case 3:
      return { t: "unit" };
    case 4:
      return { t: "bool" };
    case 8:
      return { t: "data" };
    case 7: {
      const next = tags.shift();
      if (next === 5) return { t: "list", of: readType(tags, depth + 1) };
      if (next === 7 && tags.shift() === 6) {
        const a = readType(tags, depth + 1);
        return { t: "pair", a, b: readType(tags, depth + 1) };
      }
      throw new Malformed("ill-formed type application");
    }
    default: // BLS12-381 values have no flat encoding; other tags are unknown
      throw new Malformed(`constant type tag ${tag}`);
  }
};

const utf8 = new TextDecoder("utf-8", { fatal: true });

const readValue = (r: Bits, type: Type, depth = 0): void => {
  if (depth > maxTypeDepth) throw new Malformed("value nested too deeply");
  switch (type.t) {
    case "integer":
    case "unit":
      if (type.t === "integer") r.natural();
      return;
    case "bool":
      r.bit();
      return;
    case "bytestring":
      r.byteString();
      return;
    case "string":
      try {
        utf8.decode(r.byteString());
      } catch {
        throw new Malformed("string constant is not UTF-8");
      }
      return;
    case "data":
      try {
        CML.PlutusData.from_cbor_bytes(r.byteString()).free();
      } catch {
        throw new Malformed("data constant is not Plutus data");
      }
      return;
    case "list":
      while (r.bit() === 1) readValue(r, type.of, depth + 1);
      return;
    case "pair":
      readValue(r, type.a, depth + 1);
      readValue(r, type.b, depth + 1);
  }
};

const readProgram = (flat: Uint8Array, language: PlutusLanguage, builtins: ReadonlySet<number>): void => {
  const r = new Bits(flat);
  const version = [r.natural(), r.natural(), r.natural()].join(".");
  const v110 = version === "1.1.0";
  if (version !== "1.0.0" && !(v110 && language === "plutus:v3")) {
    throw new Malformed(`version ${version} in ${language}`);
  }
  // an explicit stack: scripts nest deeper than JavaScript's call stack
  const pending: Array<"term" | "terms"> = ["term"];
  while (pending.length > 0) {
    if (pending.pop() === "terms") {
      if (r.bit() === 1) pending.push("terms", "term");
      continue;
    }
    const tag = r.bits(4);
    switch (tag) {
      case 0: // variable
        word64(r.natural());
        break;
      case 1: // delay
      case 2: // lambda (de Bruijn: no binder)
      case 5: // force
        pending.push("term");
        break;
      case 3: // application
        pending.push("term", "term");
        break;
      case 4: { // constant
        const tags: Array<number> = [];
        while (r.bit() === 1) tags.push(r.bits(4));
        const type = readType(tags);
        if (tags.length > 0) throw new Malformed("type tags left over");
        readValue(r, type);
        break;
      }
      case 6: // error
        break;
      case 7: {
        const id = r.bits(7);
        if (!builtins.has(id)) throw new Malformed(`builtin ${id} not available in ${language}`);
        break;
      }
      case 8: // constr
        if (!v110) throw new Malformed("constr before 1.1.0");
        word64(r.natural());
        pending.push("terms");
        break;
      case 9: // case
        if (!v110) throw new Malformed("case before 1.1.0");
        pending.push("terms", "term");
        break;
      default:
        throw new Malformed(`term tag ${tag}`);
    }
  }
  r.filler();
  if (!r.atEnd) throw new Malformed("bytes after the program");
};

/** `bytes`: the script's own bytes (CML's to_raw_bytes), a CBOR byte string of the flat program. */
export const plutusScriptWellFormed = (
  bytes: Uint8Array,
  language: PlutusLanguage,
  protocolMajor: number,
): boolean => {
  try {
    const outer = readCbor(bytes);
    if (outer.kind !== "bytes") return false;
    if (language === "plutus:v3" && outer.end !== bytes.length) return false;
    readProgram(outer.value, language, availableBuiltins(language, protocolMajor));
    return true;
  } catch {
    return false;
  }
};
