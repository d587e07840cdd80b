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
import { TxStatus } from "./public.ts";

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

export class PublicGroup extends HttpApiGroup.make("public")
  .add(txStatus)
  .addError(AccessError) {}

export class Api extends HttpApi.make("cardano-data-service")
  .add(PublicGroup)
  .addError(NotFound) {}
