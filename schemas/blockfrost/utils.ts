/**
 * The Blockfrost dialect's utils endpoints, paths relative to a network's base URL (./api.ts): script evaluation,
 * the transaction alone (`/utils/txs/evaluate`, its CBOR as the body) or with extra UTxOs for chained
 * transactions (`/utils/txs/evaluate/utxos`). Extra UTxOs come in Ogmios v5.6's shape (`[TxIn, TxOut]` pairs,
 * what Lucid, Mesh and blockfrost-js send) or v6's (Utxo entries); the answer is Ogmios v5.6's `EvaluateTx`
 * response, or v6's JSON-RPC reply with `?version=6`.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint";
import * as HttpApiGroup from "@effect/platform/HttpApiGroup";
import * as HttpApiSchema from "@effect/platform/HttpApiSchema";
import * as OpenApi from "@effect/platform/OpenApi";
import { Schema } from "effect";

const hexOf = (what: string, bytes?: number) =>
  Schema.String.pipe(
    Schema.pattern(
      bytes === undefined ? /^(?:[0-9a-fA-F]{2})*$/ : new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`),
      {
        message: () => `${what} must be ${bytes === undefined ? "" : `${bytes} bytes of `}hex`,
      },
    ),
  );

/** A quantity: a JSON number (exact beyond 2^53 when read exactly), or decimal digits in a string. */
const Quantity = Schema.Union(
  Schema.BigIntFromSelf,
  Schema.BigIntFromNumber,
  Schema.BigInt,
).pipe(
  Schema.filter((n) => n >= 0n, { message: () => "a quantity must be a whole number, 0 or more" }),
).annotations({
  message: () => "a quantity must be a whole number, 0 or more",
  jsonSchema: { oneOf: [{ type: "integer", minimum: 0 }, { type: "string", pattern: "^[0-9]+$" }] },
});

const Index = Schema.Int.pipe(Schema.between(0, 65_535)).annotations({
  message: () => "an output index must be a whole number from 0 to 65535",
});
const TxId = hexOf("a transaction id", 32);
const optionalNullable = <S extends Schema.Schema.All>(s: S) => Schema.optional(Schema.NullOr(s));

/** Ogmios v5.6's native script: a key hash, or `{all|any: [...]}`, `{NOf: {"n": [...]}}`, `{expiresAt|startsAt}`. */
export type NativeScriptV5 =
  | string
  | { readonly all: ReadonlyArray<NativeScriptV5> }
  | { readonly any: ReadonlyArray<NativeScriptV5> }
  | { readonly NOf: Readonly<Record<string, ReadonlyArray<NativeScriptV5>>> }
  | { readonly expiresAt: number }
  | { readonly startsAt: number };

const nativeV5 = Schema.suspend((): Schema.Schema<NativeScriptV5> => NativeScriptV5);
export const NativeScriptV5: Schema.Schema<NativeScriptV5> = Schema.Union(
  hexOf("a key hash", 28),
  Schema.Struct({ all: Schema.Array(nativeV5) }),
  Schema.Struct({ any: Schema.Array(nativeV5) }),
  Schema.Struct({ NOf: Schema.Record({ key: Schema.String, value: Schema.Array(nativeV5) }) }),
  Schema.Struct({ expiresAt: Schema.Int }),
  Schema.Struct({ startsAt: Schema.Int }),
).annotations({
  identifier: "OgmiosV5NativeScript",
  message: () =>
    "a native script must be a key hash or {all|any: [...]}, {NOf: {n: [...]}}, {expiresAt|startsAt: slot}",
});

/** Ogmios v5.6's TxIn. */
export const TxInV5 = Schema.Struct({ txId: TxId, index: Index });

/** Ogmios v5.6's TxOut: `assets` keyed `policy` or `policy.assetName`; `script` keyed by its language. */
export const TxOutV5 = Schema.Struct({
  address: Schema.String,
  value: Schema.Struct({
    coins: Quantity,
    assets: optionalNullable(Schema.Record({ key: Schema.String, value: Quantity })),
  }),
  datumHash: optionalNullable(hexOf("a datum hash", 32)),
  datum_hash: optionalNullable(hexOf("a datum hash", 32)),
  /** The inline datum, CBOR in hex. */
  datum: optionalNullable(hexOf("an inline datum (its CBOR)")),
  script: optionalNullable(
    Schema.Union(
      Schema.Struct({ "plutus:v1": hexOf("a Plutus script") }),
      Schema.Struct({ "plutus:v2": hexOf("a Plutus script") }),
      Schema.Struct({ "plutus:v3": hexOf("a Plutus script") }),
      Schema.Struct({ native: NativeScriptV5 }),
    ).annotations({
      message: () => 'a script must be {"plutus:v1|v2|v3": "<cbor hex>"} or {"native": <native script>}',
    }),
  ),
});

export const UtxoV5 = Schema.Tuple(TxInV5, TxOutV5).annotations({ identifier: "OgmiosV5Utxo" });

/** Ogmios v6's Utxo entry (cardano.json `Utxo`'s items), as JSON-RPC's `evaluateTransaction` takes it. */
export const UtxoV6 = Schema.Struct({
  transaction: Schema.Struct({ id: TxId }),
  index: Index,
  address: Schema.String,
  value: Schema.Record({
    key: Schema.String,
    value: Schema.Record({ key: Schema.String, value: Quantity }),
  }),
  datumHash: optionalNullable(hexOf("a datum hash", 32)),
  datum: optionalNullable(hexOf("an inline datum (its CBOR)")),
  script: optionalNullable(Schema.Struct({
    language: Schema.Literal("native", "plutus:v1", "plutus:v2", "plutus:v3"),
    cbor: Schema.optional(hexOf("a script")),
    json: Schema.optional(Schema.Unknown),
  })),
}).annotations({ identifier: "OgmiosV6Utxo" });

/** `/utils/txs/evaluate/utxos`'s body: the transaction (hex or base64) and the outputs it spends that are not on chain. */
export const EvaluateUtxosBody = Schema.Struct({
  cbor: Schema.String.annotations({ description: "The transaction's CBOR, in hex (base16) or base64" }),
  additionalUtxoSet: optionalNullable(
    Schema.Array(Schema.Union(UtxoV5, UtxoV6)).annotations({
      description: "Ogmios v5.6 `[TxIn, TxOut]` pairs, or Ogmios v6 Utxo entries",
    }),
  ),
});

/** `?version=`: the Ogmios version whose answer shape to use, 5 (v5.6, the default) or 6. */
export const EvaluateQuery = Schema.Struct({
  version: Schema.optionalWith(
    Schema.Literal("5", "5.6", "6").annotations({ message: () => "must be 5 or 6" }),
    { default: () => "5" as const },
  ),
});

const answer = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  description:
    "Ogmios v5.6's EvaluateTx response (`result.EvaluationResult` or `result.EvaluationFailure`), or " +
    "with version=6 Ogmios v6's evaluateTransaction reply (`result` or `error`)",
});

export const evaluate = HttpApiEndpoint.post("evaluate", "/utils/txs/evaluate")
  .setUrlParams(EvaluateQuery)
  .setPayload(
    HttpApiSchema.Text({ contentType: "application/cbor" }).annotations({
      description: "The transaction's CBOR: raw bytes, or hex (base16) or base64 text",
    }),
  )
  .addSuccess(answer)
  .annotateContext(OpenApi.annotations({ summary: "The execution units a transaction's scripts need" }));

export const evaluateUtxos = HttpApiEndpoint.post("evaluateUtxos", "/utils/txs/evaluate/utxos")
  .setUrlParams(EvaluateQuery)
  .setPayload(EvaluateUtxosBody)
  .addSuccess(answer)
  .annotateContext(OpenApi.annotations({
    summary: "The execution units a transaction's scripts need, given outputs not yet on chain",
  }));

export class UtilsGroup extends HttpApiGroup.make("utils")
  .add(evaluate)
  .add(evaluateUtxos)
  .annotateContext(
    OpenApi.annotations({ description: "Script evaluation, with extra UTxOs for chained transactions" }),
  ) {}
