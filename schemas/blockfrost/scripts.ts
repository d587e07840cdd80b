/** The Blockfrost dialect's scripts endpoints, paths relative to a network's base URL (./api.ts). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint";
import * as HttpApiGroup from "@effect/platform/HttpApiGroup";
import * as OpenApi from "@effect/platform/OpenApi";
import { Schema } from "effect";

const scriptPath = Schema.Struct({
  script_hash: Schema.String.pipe(
    Schema.pattern(/^[0-9a-fA-F]{56}$/, { message: () => "must be 56 hexadecimal characters" }),
  ),
});

const datumPath = Schema.Struct({
  datum_hash: Schema.String.pipe(
    Schema.pattern(/^[0-9a-fA-F]{64}$/, { message: () => "must be 64 hexadecimal characters" }),
  ),
});

export const BfScript = Schema.Struct({
  script_hash: Schema.String,
  type: Schema.Literal("timelock", "plutusV1", "plutusV2", "plutusV3"),
  serialised_size: Schema.NullOr(Schema.Int),
}).annotations({ identifier: "BlockfrostScript" });

export const script = HttpApiEndpoint.get("script", "/scripts/:script_hash")
  .setPath(scriptPath)
  .addSuccess(BfScript)
  .annotateContext(OpenApi.annotations({ summary: "A script's language and size" }));

export const scriptCbor = HttpApiEndpoint.get("scriptCbor", "/scripts/:script_hash/cbor")
  .setPath(scriptPath)
  .addSuccess(Schema.Struct({
    cbor: Schema.NullOr(Schema.String).annotations({
      description: "A Plutus script's bytes as db-sync keeps them (hex); null for a timelock",
    }),
  }))
  .annotateContext(OpenApi.annotations({ summary: "A Plutus script's CBOR" }));

export const scriptJson = HttpApiEndpoint.get("scriptJson", "/scripts/:script_hash/json")
  .setPath(scriptPath)
  .addSuccess(Schema.Struct({
    json: Schema.Unknown.annotations({ description: "A timelock's JSON; null for a Plutus script" }),
  }))
  .annotateContext(OpenApi.annotations({ summary: "A native script's JSON" }));

export const datum = HttpApiEndpoint.get("datum", "/scripts/datum/:datum_hash")
  .setPath(datumPath)
  .addSuccess(Schema.Struct({ json_value: Schema.Unknown }))
  .annotateContext(OpenApi.annotations({ summary: "A datum as JSON (cardano-node's detailed schema)" }));

export const datumCbor = HttpApiEndpoint.get("datumCbor", "/scripts/datum/:datum_hash/cbor")
  .setPath(datumPath)
  .addSuccess(Schema.Struct({ cbor: Schema.String }))
  .annotateContext(OpenApi.annotations({ summary: "A datum's CBOR (hex)" }));

export class ScriptsGroup extends HttpApiGroup.make("scripts")
  .add(script)
  .add(scriptCbor)
  .add(scriptJson)
  .add(datum)
  .add(datumCbor)
  .annotateContext(OpenApi.annotations({ description: "Scripts and datums" })) {}
