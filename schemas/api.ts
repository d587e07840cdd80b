/**
 * The HTTP contract: every endpoint with its parameters, bodies, answers and errors. The REST and explorer
 * endpoints are served from these declarations (src/rest/endpoint.ts); the service's own, GraphQL and JSON-RPC
 * endpoints name their routes here (src/server/routes.ts and each adapter's routes.ts). /openapi.json is derived from them (src/rest/
 * openapi.ts), so the document and the behaviour cannot drift apart.
 */
import * as HttpApi from "@effect/platform/HttpApi";
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint";
import * as HttpApiGroup from "@effect/platform/HttpApiGroup";
import * as HttpApiSchema from "@effect/platform/HttpApiSchema";
import * as OpenApi from "@effect/platform/OpenApi";
import { ParseResult, Schema } from "effect";
import { ApiKey, GraphqlApiKey } from "./access.ts";
import { BadRequest, NotFound, ServiceUnavailable } from "./errors.ts";
import { NetworkParam } from "./network.ts";
import {
  AddressInfo,
  AddressUtxo,
  Block,
  BlockSummary,
  BlockTransaction,
  DRep,
  NetworkStats,
  PoolInfo,
  Transaction,
} from "./explorer.ts";
import {
  GraphqlBadRequest,
  GraphqlBodyTooLarge,
  GraphqlRequest,
  GraphqlResponse,
  GraphqlServiceUnavailable,
} from "./graphql_wire.ts";
import {
  JsonRpcBodyTooLarge,
  JsonRpcError,
  JsonRpcRateLimited,
  JsonRpcRequest,
  JsonRpcResult,
} from "./jsonrpc_wire.ts";
import { BooleanParam, Hash32, LimitParam, PageParam, PageSizeParam, Paginated } from "./primitives.ts";
import { PoolStatus, Price, ProtocolParameters, PublicPoolInfo, StakeAccount, TxStatus } from "./public.ts";
import { Health, KeyInfo, OgmiosHealth, Ready } from "./service.ts";

const summary = (text: string, description?: string) =>
  OpenApi.annotations(description === undefined ? { summary: text } : { summary: text, description });

const networkQuery = Schema.Struct({
  network: Schema.optionalWith(NetworkParam, { default: () => "mainnet" as const }).annotations({
    description: "mainnet (the default) or preprod",
  }),
});

export const txStatus = HttpApiEndpoint.get("txStatus", "/api/public/tx-status")
  .setUrlParams(Schema.Struct({
    txHash: Hash32.annotations({ message: () => "must be 64 lower-case hexadecimal characters" }),
    network: Schema.optionalWith(NetworkParam, {
      default: () => "mainnet" as const,
    }),
  }))
  .addSuccess(TxStatus)
  .addError(BadRequest)
  .annotateContext(summary("A transaction's confirmation state", "found: false for an unknown hash"));

export const protocolParameters = HttpApiEndpoint.get("protocolParameters", "/api/public/protocol-parameters")
  .setUrlParams(networkQuery)
  .addSuccess(ProtocolParameters)
  .addError(BadRequest)
  .annotateContext(summary(
    "The current protocol parameters (Ogmios' shape)",
    "From the Ogmios upstream when one is configured, else from db-sync's epoch_param and cost_model.",
  ));

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
  .annotateContext(summary("A stake pool's registration, stake and blocks"));

export const stakeAccount = HttpApiEndpoint.get("stakeAccount", "/api/public/stake-account")
  .setUrlParams(Schema.Struct({
    address: required("address", "a bech32 stake address: stake1… (mainnet) or stake_test1… (preprod)"),
  }))
  .addSuccess(StakeAccount)
  .addError(BadRequest)
  .annotateContext(summary("A stake account's registration, delegation, rewards and stake"));

/** A block number or a block hash (spec: `block/{id}`); the decoded side is what the document shows. */
export const BlockId = Schema.transformOrFail(
  Schema.String,
  Schema.Union(Schema.Int.pipe(Schema.between(0, 2 ** 31)), Hash32),
  {
    strict: true,
    decode: (text, _, ast) =>
      /^\d{1,10}$/.test(text) && Number(text) <= 2 ** 31
        ? ParseResult.succeed(Number(text))
        : /^[a-f0-9]{64}$/.test(text)
        ? ParseResult.succeed(text)
        : ParseResult.fail(
          new ParseResult.Type(
            ast,
            text,
            "must be a block number or a 64-character lower-case hex block hash",
          ),
        ),
    encode: (id) => ParseResult.succeed(String(id)),
  },
).annotations({
  description: "A block number, or a 64-character lower-case hex block hash",
  jsonSchema: {
    description: "A block number, or a 64-character lower-case hex block hash",
    anyOf: [{ type: "integer", minimum: 0, maximum: 2 ** 31 }, { type: "string", pattern: "^[a-f0-9]{64}$" }],
  },
});

const blockPath = Schema.Struct({
  network: NetworkParam,
  id: BlockId,
});

export const blocks = HttpApiEndpoint.get("blocks", "/v2/explorer/:network/blocks")
  .setPath(onNetwork)
  .setUrlParams(Schema.Struct({ page: PageParam, limit: LimitParam }))
  .addSuccess(Paginated(BlockSummary))
  .addError(BadRequest)
  .annotateContext(summary("The newest blocks, a page at a time", "Page 1 ends at the tip."));

export const block = HttpApiEndpoint.get("block", "/v2/explorer/:network/block/:id")
  .setPath(blockPath)
  .addSuccess(Block)
  .addError(BadRequest)
  .addError(NotFound)
  .annotateContext(summary(
    "A block by number or hash",
    'Its transactions are at `block/{id}/txs`, which the `Link` header names (rel="transactions").',
  ));

export const blockTransactions = HttpApiEndpoint.get(
  "blockTransactions",
  "/v2/explorer/:network/block/:id/txs",
)
  .setPath(blockPath)
  .setUrlParams(Schema.Struct({ page: PageParam, limit: LimitParam }))
  .addSuccess(Paginated(BlockTransaction))
  .addError(BadRequest)
  .addError(NotFound)
  .annotateContext(summary(
    "A block's transactions, in block order, a page at a time",
    "Each transaction in full is at `tx/{hash}`.",
  ));

export const pool = HttpApiEndpoint.get("pool", "/v2/explorer/:network/pool/:poolId")
  .setPath(Schema.Struct({
    network: NetworkParam,
    poolId: required("poolId", "a bech32 pool id: pool1… (on preprod pool_test1… is accepted too)"),
  }))
  .addSuccess(PoolInfo)
  .addError(BadRequest)
  .addError(NotFound)
  .annotateContext(summary("A stake pool in full: stake, saturation, pledge, owners, relays, rewards"));

const addressPath = Schema.Struct({
  network: NetworkParam,
  addr: required("addr", "an address: addr1…/addr_test1…, stake1…/stake_test1…, or a Byron base58 address"),
});

export const address = HttpApiEndpoint.get("address", "/v2/explorer/:network/address/:addr")
  .setPath(addressPath)
  .addSuccess(AddressInfo)
  .addError(BadRequest)
  .addError(NotFound)
  .annotateContext(summary("An address's balance, tokens and activity"));

export const addressUtxos = HttpApiEndpoint.get("addressUtxos", "/v2/explorer/:network/address/:addr/utxos")
  .setPath(addressPath)
  .setUrlParams(Schema.Struct({ page: PageParam, limit: LimitParam }))
  .addSuccess(Paginated(AddressUtxo))
  .addError(BadRequest)
  .annotateContext(summary("An address's unspent outputs, oldest first, a page at a time"));

export const tx = HttpApiEndpoint.get("tx", "/v2/explorer/:network/tx/:hash")
  .setPath(Schema.Struct({
    network: NetworkParam,
    hash: Hash32.annotations({ message: () => "must be 64 lower-case hexadecimal characters" }),
  }))
  .addSuccess(Transaction)
  .addError(BadRequest)
  .addError(NotFound)
  .annotateContext(
    summary("A transaction in full: inputs, outputs, certificates, withdrawals, mints, metadata"),
  );

export const dreps = HttpApiEndpoint.get("dreps", "/v2/explorer/:network/dreps")
  .setPath(onNetwork)
  .setUrlParams(
    Schema.Struct({ page: PageParam, pageSize: PageSizeParam, activeOnly: BooleanParam("activeOnly") }),
  )
  .addSuccess(Paginated(DRep))
  .addError(BadRequest)
  .annotateContext(summary("Delegate representatives by voting power, a page at a time"));

export const stats = HttpApiEndpoint.get("stats", "/v2/explorer/:network/stats")
  .setPath(onNetwork)
  .addSuccess(NetworkStats)
  .addError(BadRequest)
  .addError(NotFound)
  .annotateContext(summary("The chain's tip, epoch progress, supply and stake figures"));

export class ExplorerGroup extends HttpApiGroup.make("explorer")
  .add(pool)
  .add(address)
  .add(addressUtxos)
  .add(tx)
  .add(blocks)
  .add(block)
  .add(blockTransactions)
  .add(stats)
  .add(dreps)
  .addError(ServiceUnavailable)
  .middleware(ApiKey)
  .annotateContext(OpenApi.annotations({ description: "The explorer API: `/v2/explorer/{network}/…`" })) {}

export const price = HttpApiEndpoint.get("price", "/api/public/price")
  .addSuccess(Price)
  .annotateContext(summary("The ADA/USD price", "503 before the price source has answered once."));

export const poolStatus = HttpApiEndpoint.get("poolStatus", "/api/public/pool-status")
  .setUrlParams(networkQuery)
  .addSuccess(PoolStatus)
  .addError(BadRequest)
  .addError(NotFound)
  .annotateContext(summary(
    "The operator's own pool (POOL_ID): stake, delegators, blocks, relay health",
    "404 when POOL_ID is not set or not registered on the network.",
  ));

export class PublicGroup extends HttpApiGroup.make("public")
  .add(poolInfo)
  .add(poolStatus)
  .add(stakeAccount)
  .add(txStatus)
  .add(price)
  .add(protocolParameters)
  .addError(ServiceUnavailable)
  .middleware(ApiKey)
  .annotateContext(OpenApi.annotations({ description: "The public REST API: `/api/public/…`" })) {}

export const health = HttpApiEndpoint.get("health", "/health")
  .addSuccess(Health)
  .annotateContext(summary(
    "Liveness: 200 while the process serves, with each network's tip and each dependency's state; no key needed",
    "Never 503: a lost database shows as `degraded` here and as 503 on /ready, so a liveness probe does not " +
      "restart a process that only needs to wait.",
  ));

export const ready = HttpApiEndpoint.get("ready", "/ready")
  .addSuccess(Ready)
  .addError(ServiceUnavailable)
  .annotateContext(summary(
    "Readiness: 200 only when start-up is done and every database answers; no key needed",
    "503 with the reason while starting, draining, or within a few seconds of losing a database.",
  ));

export const keyInfo = HttpApiEndpoint.get("keyInfo", "/v1/key")
  .addSuccess(KeyInfo)
  .addError(ServiceUnavailable)
  .middleware(ApiKey)
  .annotateContext(summary("The calling key's name, tier and limits"));

export const openApi = HttpApiEndpoint.get("openApi", "/openapi.json")
  .addSuccess(
    Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
      description: "This document",
    }),
  )
  .annotateContext(summary("This OpenAPI document", "Swagger UI shows it at /docs."));

export class ServiceGroup extends HttpApiGroup.make("service")
  .add(health)
  .add(ready)
  .add(keyInfo)
  .add(openApi)
  .annotateContext(
    OpenApi.annotations({ description: "The service itself: health, readiness, keys, this document" }),
  ) {}

const html = HttpApiSchema.Text({ contentType: "text/html" }).annotations({
  description: "The GraphiQL page",
});
const graphqlSdlUrl = "/v1/graphql/schema.graphql";

/** The GraphQL endpoints of one network: queries (POST), GraphiQL (GET) and the schema's SDL. */
const graphqlEndpoints = <const N extends string, const P extends `/${string}`>(
  name: N,
  path: P,
  network: string,
) =>
  [
    HttpApiEndpoint.post(`${name}`, path)
      .setPayload(GraphqlRequest)
      .addSuccess(GraphqlResponse)
      .addError(GraphqlBadRequest)
      .addError(GraphqlBodyTooLarge)
      .addError(GraphqlServiceUnavailable)
      .middleware(GraphqlApiKey)
      .annotateContext(summary(
        `A GraphQL query on ${network}`,
        `The schema: ${path}/schema.graphql (SDL). A GraphQL key budget applies (GRAPHQL_RATE_*); ` +
          "X-SQL-Statements says how many statements the query issued.",
      )),
    HttpApiEndpoint.get(`${name}Ide`, path)
      .addSuccess(html)
      .annotateContext(summary(`GraphiQL on ${network}; no key needed to open it`)),
    HttpApiEndpoint.get(`${name}Schema`, `${path}/schema.graphql` as `/${string}`)
      .addSuccess(
        HttpApiSchema.Text({ contentType: "text/plain" }).annotations({ description: "GraphQL SDL" }),
      )
      .annotateContext(summary(`The GraphQL schema of ${network} (SDL); no key needed`)),
  ] as const;

const [graphql, graphqlIde, graphqlSchema] = graphqlEndpoints("graphql", "/v1/graphql", "mainnet");
const [graphqlPreprod, graphqlPreprodIde, graphqlPreprodSchema] = graphqlEndpoints(
  "graphqlPreprod",
  "/v1/preprod/graphql",
  "preprod",
);
export { graphql, graphqlIde, graphqlPreprod, graphqlPreprodIde, graphqlPreprodSchema, graphqlSchema };

export class GraphqlGroup extends HttpApiGroup.make("graphql")
  .add(graphql)
  .add(graphqlIde)
  .add(graphqlSchema)
  .add(graphqlPreprod)
  .add(graphqlPreprodIde)
  .add(graphqlPreprodSchema)
  .annotateContext(OpenApi.annotations({
    description: "GraphQL over db-sync's tables (Hasura's conventions); the schema is served as SDL",
    externalDocs: { url: graphqlSdlUrl, description: "The mainnet schema (SDL)" },
  })) {}

const ogmiosDocs = {
  url: "https://ogmios.dev/api/",
  description: "Ogmios v6 JSON-RPC API: methods and schemas",
};

/** The JSON-RPC endpoints of one network: HTTP POST, WebSocket, and Ogmios' health document. */
const ogmiosEndpoints = <const N extends string, const P extends `/${string}`>(
  name: N,
  path: P,
  network: string,
) =>
  [
    HttpApiEndpoint.post(`${name}`, path)
      .setPayload(JsonRpcRequest)
      .addSuccess(JsonRpcResult)
      .addError(JsonRpcError)
      .addError(JsonRpcBodyTooLarge)
      .addError(JsonRpcRateLimited)
      .addError(ServiceUnavailable)
      .middleware(ApiKey)
      .annotateContext(OpenApi.annotations({
        summary: `One Ogmios JSON-RPC request on ${network} over HTTP`,
        description: "Ledger-state and network queries, chain sync (a fresh session per request), " +
          "evaluateTransaction and submitTransaction. 400 carries a JSON-RPC error reply.",
        externalDocs: ogmiosDocs,
      })),
    HttpApiEndpoint.get(`${name}WebSocket`, path)
      .addSuccess(HttpApiSchema.Empty(101).annotations({ description: "Switching Protocols (WebSocket)" }))
      .addError(BadRequest)
      .addError(ServiceUnavailable)
      .middleware(ApiKey)
      .annotateContext(OpenApi.annotations({
        summary: `Ogmios JSON-RPC on ${network} over a WebSocket`,
        description:
          "Send `Upgrade: websocket` (the key as the `apikey` query parameter or header); then one " +
          "JSON-RPC request per message, as Ogmios. Past the rate limit a message gets error -32029. " +
          "A GET without the upgrade answers 400.",
        externalDocs: ogmiosDocs,
      })),
    HttpApiEndpoint.get(`${name}Health`, `${path}/health` as `/${string}`)
      .addSuccess(OgmiosHealth)
      .addError(ServiceUnavailable)
      .annotateContext(summary(`Ogmios' health document for ${network}; no key needed`)),
  ] as const;

const [ogmios, ogmiosWebSocket, ogmiosHealth] = ogmiosEndpoints("ogmios", "/v1/ogmios", "mainnet");
const [ogmiosPreprod, ogmiosPreprodWebSocket, ogmiosPreprodHealth] = ogmiosEndpoints(
  "ogmiosPreprod",
  "/v1/preprod/ogmios",
  "preprod",
);
export { ogmios, ogmiosHealth, ogmiosPreprod, ogmiosPreprodHealth, ogmiosPreprodWebSocket, ogmiosWebSocket };

export class OgmiosGroup extends HttpApiGroup.make("ogmios")
  .add(ogmios)
  .add(ogmiosWebSocket)
  .add(ogmiosHealth)
  .add(ogmiosPreprod)
  .add(ogmiosPreprodWebSocket)
  .add(ogmiosPreprodHealth)
  .annotateContext(OpenApi.annotations({
    description: "Ogmios-compatible JSON-RPC 2.0 (HTTP POST and WebSocket)",
    externalDocs: ogmiosDocs,
  })) {}

export class Api extends HttpApi.make("cardano-data-service")
  .add(PublicGroup)
  .add(ExplorerGroup)
  .add(ServiceGroup)
  .add(GraphqlGroup)
  .add(OgmiosGroup) {}
