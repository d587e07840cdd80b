/**
 * The REST contract: every `/api/public/*` and `/v2/explorer/*` endpoint with its parameters, success and error
 * Schemas. The service serves them from these declarations (src/rest/endpoint.ts) and derives /openapi.json from
 * them, so the document and the behaviour cannot drift apart.
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSecurity } from "@effect/platform";
import { ParseResult, Schema } from "effect";
import { AccessError, BadRequest, NotFound, ServiceUnavailable } from "./errors.ts";
import { NetworkParam } from "./network.ts";
import { Block, BlockSummary, NetworkStats } from "./explorer.ts";
import { Hash32, LimitParam, PageParam, Paginated } from "./primitives.ts";
import { PoolStatus, Price, ProtocolParameters, TxStatus } from "./public.ts";

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

const onNetwork = Schema.Struct({ network: NetworkParam });

/** A block number or a block hash (spec: `block/{id}`). */
export const BlockId = Schema.transformOrFail(Schema.String, Schema.Union(Schema.Int, Schema.String), {
  strict: true,
  decode: (text, _, ast) =>
    /^\d{1,10}$/.test(text) && Number(text) <= 2 ** 31
      ? ParseResult.succeed(Number(text))
      : /^[a-f0-9]{64}$/.test(text)
      ? ParseResult.succeed(text)
      : ParseResult.fail(
        new ParseResult.Type(ast, text, "must be a block number or a 64-character lower-case hex block hash"),
      ),
  encode: (id) => ParseResult.succeed(String(id)),
}).annotations({ description: "A block number, or a 64-character lower-case hex block hash" });

export const blocks = HttpApiEndpoint.get("blocks", "/v2/explorer/:network/blocks")
  .setPath(onNetwork)
  .setUrlParams(Schema.Struct({ page: PageParam, limit: LimitParam }))
  .addSuccess(Paginated(BlockSummary))
  .addError(BadRequest)
  .addError(ServiceUnavailable);

export const block = HttpApiEndpoint.get("block", "/v2/explorer/:network/block/:id")
  .setPath(Schema.Struct({ network: NetworkParam, id: BlockId }))
  .addSuccess(Block)
  .addError(BadRequest)
  .addError(NotFound)
  .addError(ServiceUnavailable);

export const stats = HttpApiEndpoint.get("stats", "/v2/explorer/:network/stats")
  .setPath(onNetwork)
  .addSuccess(NetworkStats)
  .addError(BadRequest)
  .addError(ServiceUnavailable);

export class ExplorerGroup extends HttpApiGroup.make("explorer")
  .add(blocks)
  .add(block)
  .add(stats)
  .addError(AccessError) {}

export const price = HttpApiEndpoint.get("price", "/api/public/price")
  .addSuccess(Price)
  .addError(ServiceUnavailable);

export const poolStatus = HttpApiEndpoint.get("poolStatus", "/api/public/pool-status")
  .setUrlParams(networkQuery)
  .addSuccess(PoolStatus)
  .addError(BadRequest)
  .addError(NotFound)
  .addError(ServiceUnavailable);

export class PublicGroup extends HttpApiGroup.make("public")
  .add(txStatus)
  .add(poolStatus)
  .add(price)
  .add(protocolParameters)
  .addError(AccessError) {}

export class Api extends HttpApi.make("cardano-data-service")
  .add(PublicGroup)
  .add(ExplorerGroup)
  .addError(NotFound) {}
