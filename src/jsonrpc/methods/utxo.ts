/**
 * `queryLedgerState/utxo` by `addresses` (bech32 or Byron base58, of this network) or by `outputReferences`, in
 * Ogmios' Utxo shape. No filter would mean the whole UTxO set, which dispatch refuses (-32602); hex addresses,
 * addresses of the other network and malformed references are refused here (-32602). Amounts are exact (bigint)
 * JSON numbers.
 */
import { Effect, Either, Schema } from "effect";
import type { Network } from "@schemas/network.ts";
import { decodeAddress, isHash32 } from "@src/domain/cardano_ids.ts";
import type { UtxoFilter, UtxoRow } from "@src/queries/utxo.ts";
import { unspentOutputsOf } from "@src/programs/ledger/utxo.ts";
import type { MethodProgram } from "../method.ts";
import { arrayOf, checked, type Params, paramsDecoder, required, withMessage } from "../params.ts";
import type { InvalidParams } from "../protocol_errors.ts";

const maxFilter = 1_000;

const address = (network: Network) =>
  checked((a) => {
    if (typeof a !== "string") return Either.left("'addresses' must hold strings");
    if (/^[0-9a-f]+$/i.test(a) && a.length >= 58) {
      return Either.left(`address ${a.slice(0, 16)}… is hex; give it in bech32 (addr…) or Base58 (Byron)`);
    }
    const d = decodeAddress(a, network);
    if (!d.ok) return Either.left(`address ${a} ${d.reason}`);
    if (d.value.type === "reward") return Either.left(`address ${a} is a stake address, which holds no UTxO`);
    return Either.right(d.value.text);
  });

const outputReference = withMessage(
  Schema.Struct({
    transaction: Schema.Struct({ id: Schema.String.pipe(Schema.filter(isHash32)) }),
    index: Schema.Int.pipe(Schema.between(0, 65_535)),
  }),
  () => "each output reference must be {transaction: {id: <64 lower-case hex>}, index: <integer 0..65535>}",
);

const noAddresses = "'addresses' must be a non-empty array of addresses";
const noReferences = "'outputReferences' must be a non-empty array of {transaction: {id}, index}";

const byAddresses = (network: Network) =>
  paramsDecoder(Schema.Struct({
    addresses: required(
      arrayOf(address(network), {
        notArray: noAddresses,
        max: { count: maxFilter, message: `at most ${maxFilter} addresses per query` },
      }),
      noAddresses,
    ),
  }));

const byReferences = paramsDecoder(Schema.Struct({
  outputReferences: required(
    arrayOf(outputReference, {
      notArray: noReferences,
      max: { count: maxFilter, message: `at most ${maxFilter} output references per query` },
    }),
    noReferences,
  ),
}));

const addressFilters = { mainnet: byAddresses("mainnet"), preprod: byAddresses("preprod") };

/**
 * By `addresses` when given (even with `outputReferences`), else by `outputReferences`. A query with neither
 * never gets here (dispatch refuses it as too broad).
 */
const filterOf = (network: Network, params: Params): Effect.Effect<UtxoFilter, InvalidParams> =>
  params?.addresses !== undefined
    ? Effect.map(addressFilters[network](params), (p) => ({ addresses: p.addresses }))
    : Effect.map(byReferences(params), (p) => ({
      references: p.outputReferences.map((r) => ({ txHash: r.transaction.id, index: r.index })),
    }));

/** db-sync's native-script JSON (cardano-node's) in Ogmios' clause form. */
export const nativeClause = (s: unknown): unknown => {
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

export const languages: Readonly<Record<string, string>> = {
  plutusV1: "plutus:v1",
  plutusV2: "plutus:v2",
  plutusV3: "plutus:v3",
};

/** The fields an output's script, datum and address give (what follows its reference), around its `value`. */
export const outputFields = <V>(
  row: {
    readonly address: string;
    readonly inlineDatum: string | null;
    readonly dataHash: string | null;
    readonly scriptType: string | null;
    readonly scriptJson: unknown;
    readonly scriptBytes: string | null;
  },
  value: V,
) => {
  const output: { address: string; value: V; datum?: string; datumHash?: string; script?: unknown } = {
    address: row.address,
    value,
  };
  if (row.inlineDatum) output.datum = row.inlineDatum;
  else if (row.dataHash) output.datumHash = row.dataHash;
  if (row.scriptType !== null) {
    output.script = row.scriptType === "timelock" || row.scriptType === "multisig"
      ? {
        language: "native",
        json: nativeClause(row.scriptJson),
        ...(row.scriptBytes ? { cbor: row.scriptBytes } : {}),
      }
      : { language: languages[row.scriptType] ?? row.scriptType, cbor: row.scriptBytes ?? "" };
  }
  return output;
};

/** An output's fields after its reference (`transaction`, `index`): a block's outputs are listed without one. */
export const toOgmiosOutput = (row: UtxoRow) => {
  const value: Record<string, Record<string, bigint>> = { ada: { lovelace: BigInt(row.value) } };
  for (const a of row.assets ?? []) {
    const policy = (value[a.policy] ??= {});
    policy[a.name] = (policy[a.name] ?? 0n) + BigInt(a.quantity);
  }
  return outputFields(row, value);
};

export const toOgmiosUtxo = (row: UtxoRow) => ({
  transaction: { id: row.txHash },
  index: row.index,
  ...toOgmiosOutput(row),
});

export const utxo: MethodProgram = (network, params) =>
  filterOf(network, params).pipe(
    Effect.flatMap((filter) => unspentOutputsOf(network, filter)),
    Effect.map((rows) => rows.map(toOgmiosUtxo)),
  );
