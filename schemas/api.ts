/**
 * The REST contract: every `/api/public/*` and `/v2/explorer/*` endpoint with its parameters, success and error
 * Schemas. The service serves them from these declarations (src/rest/endpoint.ts) and derives /openapi.json from
 * them, so the document and the behaviour cannot drift apart.
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSecurity } from "@effect/platform";
import { Schema } from "effect";
import { AccessError, BadRequest, NotFound, ServiceUnavailable } from "./errors.ts";
import { NetworkParam } from "./network.ts";
import { Hash32 } from "./primitives.ts";
import { ProtocolParameters, TxStatus } from "./public.ts";

export const apiKeySecurity = HttpApiSecurity.apiKey({ key: "apikey", in: "header" });

export const txStatus = HttpApiEndpoint.get("txStatus", "/api/public/tx-status")
  .setUrlParams(Schema.Struct({
    txHash: Hash32.annotations({ message: () => "must be 64 lower-case hexadecimal characters" }),
    network: Schema.optionalWith(NetworkParam, {
      default: () => "mainnet" as const,
    }),
  }))
  .addSuccess(TxStatus)
  .addError(BadRequest)
  .addError(ServiceUnavailable);

const networkQuery = Schema.Struct({
  network: Schema.optionalWith(NetworkParam, { default: () => "mainnet" as const }),
});

export const protocolParameters = HttpApiEndpoint.get("protocolParameters", "/api/public/protocol-parameters")
  .setUrlParams(networkQuery)
  .addSuccess(ProtocolParameters)
  .addError(BadRequest)
  .addError(ServiceUnavailable);

export class PublicGroup extends HttpApiGroup.make("public")
  .add(txStatus)
  .add(protocolParameters)
  .addError(AccessError) {}

export class Api extends HttpApi.make("cardano-data-service")
  .add(PublicGroup)
  .addError(NotFound) {}
