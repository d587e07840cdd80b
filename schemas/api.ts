/**
 * The REST contract: every `/api/public/*` and `/v2/explorer/*` endpoint with its parameters, success and error
 * Schemas. The service serves them from these declarations (src/rest/endpoint.ts) and derives /openapi.json from
 * them, so the document and the behaviour cannot drift apart.
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSecurity } from "@effect/platform";
import { ParseResult, Schema } from "effect";
import { AccessError, BadRequest, NotFound, ServiceUnavailable } from "./errors.ts";
import { NetworkParam } from "./network.ts";
import {
  AddressInfo,
  AddressUtxo,
  Block,
  BlockSummary,
  DRep,
  NetworkStats,
  PoolInfo,
  Transaction,
} from "./explorer.ts";
import { BooleanParam, Hash32, LimitParam, PageParam, PageSizeParam, Paginated } from "./primitives.ts";
import { PoolStatus, Price, ProtocolParameters, PublicPoolInfo, StakeAccount, TxStatus } from "./public.ts";

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

/** A required text parameter; its format (bech32 and the network's prefix) is checked by the program. */
const required = (name: string, what: string) =>
  Schema.String.pipe(Schema.minLength(1, { message: () => `${name} is required: ${what}` })).annotations({
    description: what,
  });

export const poolInfo = HttpApiEndpoint.get("poolInfo", "/api/public/pool-info")
  .setUrlParams(Schema.Struct({
    poolId: required("poolId", "a bech32 pool id: pool1… (on preprod pool_test1… is accepted too)"),
    network: Schema.optional(NetworkParam).annotations({
      description:
        "the network to look on; pool_test1… ids imply preprod, pool1… ids mainnet unless this says so",
    }),
  }))
  .addSuccess(PublicPoolInfo)
  .addError(BadRequest)
  .addError(NotFound)
  .addError(ServiceUnavailable);

export const stakeAccount = HttpApiEndpoint.get("stakeAccount", "/api/public/stake-account")
  .setUrlParams(Schema.Struct({
    address: required("address", "a bech32 stake address: stake1… (mainnet) or stake_test1… (preprod)"),
  }))
  .addSuccess(StakeAccount)
  .addError(BadRequest)
  .addError(ServiceUnavailable);

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

export const pool = HttpApiEndpoint.get("pool", "/v2/explorer/:network/pool/:poolId")
  .setPath(Schema.Struct({
    network: NetworkParam,
    poolId: required("poolId", "a bech32 pool id: pool1… (on preprod pool_test1… is accepted too)"),
  }))
  .addSuccess(PoolInfo)
  .addError(BadRequest)
  .addError(NotFound)
  .addError(ServiceUnavailable);

const addressPath = Schema.Struct({
  network: NetworkParam,
  addr: required("addr", "an address: addr1…/addr_test1…, stake1…/stake_test1…, or a Byron base58 address"),
});

export const address = HttpApiEndpoint.get("address", "/v2/explorer/:network/address/:addr")
  .setPath(addressPath)
  .addSuccess(AddressInfo)
  .addError(BadRequest)
  .addError(NotFound)
  .addError(ServiceUnavailable);

export const addressUtxos = HttpApiEndpoint.get("addressUtxos", "/v2/explorer/:network/address/:addr/utxos")
  .setPath(addressPath)
  .setUrlParams(Schema.Struct({ page: PageParam, limit: LimitParam }))
  .addSuccess(Paginated(AddressUtxo))
  .addError(BadRequest)
  .addError(ServiceUnavailable);

export const tx = HttpApiEndpoint.get("tx", "/v2/explorer/:network/tx/:hash")
  .setPath(Schema.Struct({
    network: NetworkParam,
    hash: Hash32.annotations({ message: () => "must be 64 lower-case hexadecimal characters" }),
  }))
  .addSuccess(Transaction)
  .addError(BadRequest)
  .addError(NotFound)
  .addError(ServiceUnavailable);

export const dreps = HttpApiEndpoint.get("dreps", "/v2/explorer/:network/dreps")
  .setPath(onNetwork)
  .setUrlParams(
    Schema.Struct({ page: PageParam, pageSize: PageSizeParam, activeOnly: BooleanParam("activeOnly") }),
  )
  .addSuccess(Paginated(DRep))
  .addError(BadRequest)
  .addError(ServiceUnavailable);

export const stats = HttpApiEndpoint.get("stats", "/v2/explorer/:network/stats")
  .setPath(onNetwork)
  .addSuccess(NetworkStats)
  .addError(BadRequest)
  .addError(ServiceUnavailable);

export class ExplorerGroup extends HttpApiGroup.make("explorer")
  .add(pool)
  .add(address)
  .add(addressUtxos)
  .add(tx)
  .add(blocks)
  .add(block)
  .add(stats)
  .add(dreps)
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
  .add(poolInfo)
  .add(poolStatus)
  .add(stakeAccount)
  .add(txStatus)
  .add(price)
  .add(protocolParameters)
  .addError(AccessError) {}

export class Api extends HttpApi.make("cardano-data-service")
  .add(PublicGroup)
  .add(ExplorerGroup)
  .addError(NotFound) {}
