/**
 * `queryLedgerState/utxo` by `addresses` (bech32 or Byron base58, of this network) or by `outputReferences`, in
 * Ogmios' Utxo shape. No filter would mean the whole UTxO set: refused with -32602, as are hex addresses,
 * addresses of the other network and malformed references. Amounts are exact (bigint) JSON numbers.
 */
import { Effect } from "effect";
import { ChainDatabases } from "@layers/chain_db.ts";
import { decodeAddress, isHash32 } from "@src/domain/cardano_ids.ts";
import { unspentOutputs, type UtxoFilter, type UtxoRow } from "@src/queries/utxo.ts";
import type { MethodProgram } from "../method.ts";
import { errors, type RpcError } from "../frame.ts";

const maxFilter = 1_000;

const parseFilter = (
  network: "mainnet" | "preprod",
  params: Readonly<Record<string, unknown>> | undefined,
): UtxoFilter | RpcError => {
  const addresses = params?.addresses;
  const references = params?.outputReferences;
  if (addresses === undefined && references === undefined) {
    return errors.invalidParams(
      "give 'addresses' or 'outputReferences': querying the whole UTxO set is not supported",
    );
  }
  if (addresses !== undefined) {
    if (!Array.isArray(addresses) || addresses.length === 0) {
      return errors.invalidParams("'addresses' must be a non-empty array of addresses");
    }
    if (addresses.length > maxFilter) return errors.invalidParams(`at most ${maxFilter} addresses per query`);
    const decoded: Array<string> = [];
    for (const a of addresses) {
      if (typeof a !== "string") return errors.invalidParams("'addresses' must hold strings");
      if (/^[0-9a-f]+$/i.test(a) && a.length >= 58) {
        return errors.invalidParams(
          `address ${a.slice(0, 16)}… is hex; give it in bech32 (addr…) or Base58 (Byron)`,
        );
      }
      const d = decodeAddress(a, network);
      if (!d.ok) return errors.invalidParams(`address ${a} ${d.reason}`);
      if (d.value.type === "reward") {
        return errors.invalidParams(`address ${a} is a stake address, which holds no UTxO`);
      }
      decoded.push(d.value.text);
    }
    return { addresses: decoded };
  }
  if (!Array.isArray(references) || references.length === 0) {
    return errors.invalidParams("'outputReferences' must be a non-empty array of {transaction: {id}, index}");
  }
  if (references.length > maxFilter) {
    return errors.invalidParams(`at most ${maxFilter} output references per query`);
  }
  const refs: Array<{ txHash: string; index: number }> = [];
  for (const r of references) {
    const id = (r as { transaction?: { id?: unknown } })?.transaction?.id;
    const index = (r as { index?: unknown })?.index;
    if (
      typeof id !== "string" || !isHash32(id) || typeof index !== "number" || !Number.isInteger(index) ||
      index < 0 || index > 65_535
    ) {
      return errors.invalidParams(
        "each output reference must be {transaction: {id: <64 lower-case hex>}, index: <integer 0..65535>}",
      );
    }
    refs.push({ txHash: id, index });
  }
  return { references: refs };
};

/** db-sync's native-script JSON (cardano-node's) in Ogmios' clause form. */
const nativeClause = (s: unknown): unknown => {
  const script = s as {
    type?: string;
    keyHash?: string;
    scripts?: Array<unknown>;
    required?: number;
    slot?: number;
  };
  switch (script.type) {
    case "sig":
      return { clause: "signature", from: script.keyHash };
    case "all":
      return { clause: "all", from: (script.scripts ?? []).map(nativeClause) };
    case "any":
      return { clause: "any", from: (script.scripts ?? []).map(nativeClause) };
    case "atLeast":
      return { clause: "some", atLeast: script.required, from: (script.scripts ?? []).map(nativeClause) };
    case "before":
      return { clause: "before", slot: script.slot };
    case "after":
      return { clause: "after", slot: script.slot };
    default:
      return script;
  }
};

const languages: Readonly<Record<string, string>> = {
  plutusV1: "plutus:v1",
  plutusV2: "plutus:v2",
  plutusV3: "plutus:v3",
};

export const toOgmiosUtxo = (row: UtxoRow) => {
  const value: Record<string, Record<string, bigint>> = { ada: { lovelace: BigInt(row.value) } };
  for (const a of row.assets ?? []) {
    const policy = (value[a.policy] ??= {});
    policy[a.name] = (policy[a.name] ?? 0n) + BigInt(a.quantity);
  }
  const script = row.scriptType === null
    ? undefined
    : row.scriptType === "timelock" || row.scriptType === "multisig"
    ? {
      language: "native",
      json: nativeClause(row.scriptJson),
      ...(row.scriptBytes ? { cbor: row.scriptBytes } : {}),
    }
    : { language: languages[row.scriptType] ?? row.scriptType, cbor: row.scriptBytes ?? "" };
  return {
    transaction: { id: row.txHash },
    index: row.index,
    address: row.address,
    value,
    ...(row.inlineDatum ? { datum: row.inlineDatum } : row.dataHash ? { datumHash: row.dataHash } : {}),
    ...(script ? { script } : {}),
  };
};

export const utxo: MethodProgram = (network, params) =>
  Effect.gen(function* () {
    const filter = parseFilter(network, params);
    if ("code" in filter) return yield* Effect.fail(filter);
    const db = (yield* ChainDatabases).get(network);
    const rows = yield* unspentOutputs(db.sql, filter, db.dbSync.spentTracking).pipe(
      Effect.mapError((e) => errors.internal(`chain database: ${e.message}`)),
    );
    return rows.map(toOgmiosUtxo);
  });
