/**
 * Small CML helpers the devnet shares: output references as map keys, address text (bech32, or base58 for
 * Byron), outputs in Ogmios' TransactionOutput shape, scripts by kind, and native scripts to and from the JSON
 * db-sync stores for `timelock` scripts (cardano-node's simple script JSON).
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { hex } from "@scure/base";
import type { OutputReference } from "../errors.ts";
import { cmlValueToOgmios } from "./balance.ts";

export const refKey = (txId: string, index: number | bigint): string => `${txId}#${index}`;

export const inputKey = (input: CML.TransactionInput): string =>
  refKey(input.transaction_id().to_hex(), input.index());

export const inputRef = (input: CML.TransactionInput): OutputReference => ({
  transaction: { id: input.transaction_id().to_hex() },
  index: Number(input.index()),
});

export const listOf = <T>(list: { len(): number; get(i: number): T } | undefined): Array<T> => {
  const out: Array<T> = [];
  if (list) { for (let i = 0; i < list.len(); i++) out.push(list.get(i)); }
  return out;
};

export const addressText = (address: CML.Address): string =>
  address.kind() === CML.AddressKind.Byron
    ? CML.ByronAddress.from_address(address)!.to_base58()
    : address.to_bech32();

export const parseAddress = (text: string): CML.Address =>
  CML.Address.is_valid_bech32(text)
    ? CML.Address.from_bech32(text)
    : CML.ByronAddress.from_base58(text).to_address();

export type ScriptLanguage = "native" | "plutus:v1" | "plutus:v2" | "plutus:v3";

export const scriptLanguage = (script: CML.Script): ScriptLanguage => {
  switch (script.kind()) {
    case CML.ScriptKind.Native:
      return "native";
    case CML.ScriptKind.PlutusV1:
      return "plutus:v1";
    case CML.ScriptKind.PlutusV2:
      return "plutus:v2";
    default:
      return "plutus:v3";
  }
};

/** The bytes db-sync keeps in `script.bytes` for a Plutus script (none for native scripts). */
export const plutusScriptBytes = (script: CML.Script): Uint8Array | null =>
  script.as_plutus_v1()?.to_raw_bytes() ?? script.as_plutus_v2()?.to_raw_bytes() ??
    script.as_plutus_v3()?.to_raw_bytes() ?? null;

/** db-sync's `scripttype` enum value for a script. */
export const dbSyncScriptType = (script: CML.Script): string =>
  ({ native: "timelock", "plutus:v1": "plutusV1", "plutus:v2": "plutusV2", "plutus:v3": "plutusV3" })[
    scriptLanguage(script)
  ];

type NativeJson =
  | { type: "sig"; keyHash: string }
  | { type: "all" | "any"; scripts: Array<NativeJson> }
  | { type: "atLeast"; required: number; scripts: Array<NativeJson> }
  | { type: "after" | "before"; slot: number };

export const nativeScriptToJson = (s: CML.NativeScript): NativeJson => {
  const pub = s.as_script_pubkey();
  if (pub) return { type: "sig", keyHash: pub.ed25519_key_hash().to_hex() };
  const all = s.as_script_all();
  if (all) return { type: "all", scripts: listOf(all.native_scripts()).map(nativeScriptToJson) };
  const any = s.as_script_any();
  if (any) return { type: "any", scripts: listOf(any.native_scripts()).map(nativeScriptToJson) };
  const nOfK = s.as_script_n_of_k();
  if (nOfK) {
    return {
      type: "atLeast",
      required: Number(nOfK.n()),
      scripts: listOf(nOfK.native_scripts()).map(nativeScriptToJson),
    };
  }
  const before = s.as_script_invalid_before();
  if (before) return { type: "after", slot: Number(before.before()) };
  return { type: "before", slot: Number(s.as_script_invalid_hereafter()!.after()) };
};

export const nativeScriptFromJson = (j: NativeJson): CML.NativeScript => {
  const list = (scripts: Array<NativeJson>) => {
    const l = CML.NativeScriptList.new();
    for (const s of scripts) l.add(nativeScriptFromJson(s));
    return l;
  };
  switch (j.type) {
    case "sig":
      return CML.NativeScript.new_script_pubkey(CML.Ed25519KeyHash.from_hex(j.keyHash));
    case "all":
      return CML.NativeScript.new_script_all(list(j.scripts));
    case "any":
      return CML.NativeScript.new_script_any(list(j.scripts));
    case "atLeast":
      return CML.NativeScript.new_script_n_of_k(BigInt(j.required), list(j.scripts));
    case "after":
      return CML.NativeScript.new_script_invalid_before(BigInt(j.slot));
    case "before":
      return CML.NativeScript.new_script_invalid_hereafter(BigInt(j.slot));
  }
};

/** A native script in Ogmios' clause JSON (cardano.json Script<Native>). */
const ogmiosNative = (j: NativeJson): unknown => {
  switch (j.type) {
    case "sig":
      return { clause: "signature", from: j.keyHash };
    case "all":
    case "any":
      return { clause: j.type, from: j.scripts.map(ogmiosNative) };
    case "atLeast":
      return { clause: "some", atLeast: j.required, from: j.scripts.map(ogmiosNative) };
    case "after":
      return { clause: "after", slot: j.slot };
    case "before":
      return { clause: "before", slot: j.slot };
  }
};

/** A native script from Ogmios' clause JSON (the inverse of `ogmiosNative`); throws on what is not one. */
const nativeFromOgmios = (j: unknown): NativeJson => {
  const c = j as { clause?: unknown; from?: unknown; atLeast?: unknown; slot?: unknown };
  const scripts = () => {
    if (!Array.isArray(c.from)) throw new Error(`native clause '${String(c.clause)}' needs a 'from' list`);
    return c.from.map(nativeFromOgmios);
  };
  switch (c.clause) {
    case "signature":
      if (typeof c.from !== "string") throw new Error("native clause 'signature' needs a key hash in 'from'");
      return { type: "sig", keyHash: c.from };
    case "all":
    case "any":
      return { type: c.clause, scripts: scripts() };
    case "some":
      return { type: "atLeast", required: Number(c.atLeast), scripts: scripts() };
    case "before":
    case "after":
      return { type: c.clause, slot: Number(c.slot) };
    default:
      throw new Error(`unknown native script clause ${JSON.stringify(c.clause)}`);
  }
};

/** An output in Ogmios' TransactionOutput shape (cardano.json), for error data. */
export const ogmiosOutput = (o: CML.TransactionOutput): Record<string, unknown> => {
  const out: Record<string, unknown> = {
    address: addressText(o.address()),
    value: cmlValueToOgmios(o.amount()),
  };
  const datum = o.datum();
  if (datum?.as_hash()) out.datumHash = datum.as_hash()!.to_hex();
  if (datum?.as_datum()) out.datum = datum.as_datum()!.to_cbor_hex();
  const script = o.script_ref();
  if (script) {
    const language = scriptLanguage(script);
    out.script = language === "native"
      ? {
        language,
        json: ogmiosNative(nativeScriptToJson(script.as_native()!)),
        cbor: script.as_native()!.to_cbor_hex(),
      }
      : { language, cbor: hex.encode(plutusScriptBytes(script)!) };
  }
  return out;
};

/** An entry of Ogmios' Utxo (evaluateTransaction's `additionalUtxo`); quantities as numbers or bigints. */
export interface OgmiosUtxoEntry {
  readonly transaction: { readonly id: string };
  readonly index: number;
  readonly address: string;
  readonly value: Readonly<Record<string, Readonly<Record<string, number | bigint>>>>;
  readonly datumHash?: string;
  readonly datum?: string;
  readonly script?: { readonly language: string; readonly cbor?: string; readonly json?: unknown };
}

/** An Ogmios Utxo entry as the CML output it describes (a native script from its `cbor`, else its `json`). */
export const outputFromOgmios = (u: OgmiosUtxoEntry): CML.TransactionOutput => {
  const multiAsset = CML.MultiAsset.new();
  let coin = 0n;
  for (const [policy, assets] of Object.entries(u.value)) {
    for (const [name, quantity] of Object.entries(assets)) {
      if (policy === "ada") coin = BigInt(quantity);
      else multiAsset.set(CML.ScriptHash.from_hex(policy), CML.AssetName.from_hex(name), BigInt(quantity));
    }
  }
  const datum = u.datum
    ? CML.DatumOption.new_datum(CML.PlutusData.from_cbor_hex(u.datum))
    : u.datumHash
    ? CML.DatumOption.new_hash(CML.DatumHash.from_hex(u.datumHash))
    : undefined;
  const bytes = u.script?.cbor ? hex.decode(u.script.cbor) : undefined;
  const script = u.script?.language === "native" && !bytes && u.script.json !== undefined
    ? CML.Script.new_native(nativeScriptFromJson(nativeFromOgmios(u.script.json)))
    : !u.script || !bytes
    ? undefined
    : u.script.language === "native"
    ? CML.Script.new_native(CML.NativeScript.from_cbor_bytes(bytes))
    : u.script.language === "plutus:v1"
    ? CML.Script.new_plutus_v1(CML.PlutusV1Script.from_raw_bytes(bytes))
    : u.script.language === "plutus:v2"
    ? CML.Script.new_plutus_v2(CML.PlutusV2Script.from_raw_bytes(bytes))
    : CML.Script.new_plutus_v3(CML.PlutusV3Script.from_raw_bytes(bytes));
  return CML.TransactionOutput.new(parseAddress(u.address), CML.Value.new(coin, multiAsset), datum, script);
};
