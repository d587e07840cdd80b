/**
 * `/openapi.json` from the declarations in schemas/api.ts (OpenAPI 3.1, version 1.0.0), and `/docs`, a Swagger UI
 * page whose assets come from the npm package swagger-ui-dist, served from here (no CDN).
 */
import * as OpenApi from "@effect/platform/OpenApi";
import { Api } from "@schemas/api.ts";
import { withoutTitles } from "@src/http/openapi_cleanup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Effect's own decode-error schema: never on our wire (src/rest/endpoint.ts answers BadRequest instead). */
const effectInternals = ["HttpApiDecodeError", "Issue", "PropertyKey"];
const decodeErrorRef = "#/components/schemas/HttpApiDecodeError";

const rateLimitHeaders = {
  "X-RateLimit-Limit": { $ref: "#/components/headers/X-RateLimit-Limit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
  "X-RateLimit-Reset": { $ref: "#/components/headers/X-RateLimit-Reset" },
};

const headers = {
  "X-RateLimit-Limit": {
    description: "Requests per second the key's tier allows (the budget that decided this answer)",
    schema: { type: "integer" },
  },
  "X-RateLimit-Remaining": {
    description: "Requests left in the current window",
    schema: { type: "integer" },
  },
  "X-RateLimit-Reset": { description: "Seconds until the window resets", schema: { type: "integer" } },
  "Retry-After": { description: "Seconds to wait before trying again", schema: { type: "integer" } },
  ETag: {
    description: "A weak validator of the answer; send it back as If-None-Match",
    schema: { type: "string" },
  },
};

/** The 400 without Effect's decode error; undefined when nothing else answers 400. */
const without400DecodeError = (response: Json): Json => {
  const schema = response?.content?.["application/json"]?.schema;
  if (!schema) return response;
  if (schema.$ref === decodeErrorRef) return undefined;
  if (!Array.isArray(schema.anyOf)) return response;
  const rest = schema.anyOf.filter((s: Json) => s.$ref !== decodeErrorRef);
  const description = rest.length === 1 && rest[0].$ref === "#/components/schemas/BadRequest"
    ? "A parameter is malformed; the message says which and why"
    : response.description;
  return {
    ...response,
    description,
    content: { "application/json": { schema: rest.length === 1 ? rest[0] : { anyOf: rest } } },
  };
};

/** Every route refuses a repeated query parameter (src/http/query_params.ts); most say nothing else with a 400. */
const repeatedParameter = {
  description: "A query parameter is given more than once; the message names it",
  content: { "application/json": { schema: { $ref: "#/components/schemas/BadRequest" } } },
};

/** Answers of `src/rest/endpoint.ts` (the REST and explorer groups) carry an ETag and may be 304s. */
const conditional = new Set(["public", "explorer"]);

/**
 * The document: Effect's derivation from schemas/api.ts, then what Effect cannot say: the security each operation
 * really has (public ones `security: []` against the global key requirement), no decode-error schema of
 * Effect's own, the 400 every route gives a repeated query parameter, the rate-limit, Retry-After and ETag headers, 304 on conditional GETs, the block's Link header,
 * and `servers` (relative: the host that served the document).
 */
export const openApiDocument = (() => {
  const doc: Json = withoutTitles(OpenApi.fromApi(Api));
  doc.info = {
    title: "Cardano data service",
    version: "1.0.0",
    description:
      "Cardano chain data from cardano-db-sync: public REST, explorer, GraphQL and Ogmios-compatible " +
      "JSON-RPC, for mainnet and preprod. Every endpoint but /health, the Ogmios health documents, GraphiQL, " +
      "the GraphQL SDL and this document needs an API key.",
  };
  doc.servers = [{ url: "/", description: "This service" }];
  doc.security = [{ apikey: [] }];
  for (const name of effectInternals) delete doc.components.schemas[name];
  doc.components.headers = headers;
  for (const operations of Object.values(doc.paths) as Array<Record<string, Json>>) {
    for (const operation of Object.values(operations)) {
      const keyed = operation.security.length > 0;
      const responses: Record<string, Json> = operation.responses;
      const bad = without400DecodeError(responses["400"]);
      responses["400"] = bad ?? repeatedParameter;
      for (const [status, response] of Object.entries(responses)) {
        if (!keyed || status === "101") continue;
        response.headers = {
          ...rateLimitHeaders,
          ...(status === "429" ? { "Retry-After": { $ref: "#/components/headers/Retry-After" } } : {}),
          ...response.headers,
        };
      }
      if (conditional.has(operation.tags[0])) {
        responses["200"].headers = {
          ETag: { $ref: "#/components/headers/ETag" },
          ...responses["200"].headers,
        };
        responses["304"] = {
          description: "Not Modified: the If-None-Match validator still names this answer",
          headers: { ETag: { $ref: "#/components/headers/ETag" }, ...rateLimitHeaders },
        };
        operation.parameters.push({
          name: "If-None-Match",
          in: "header",
          required: false,
          description: "An ETag from an earlier answer; a 304 without a body when it still holds",
          schema: { type: "string" },
        });
      }
      operation.responses = Object.fromEntries(
        Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)),
      );
    }
  }
  const block = doc.paths["/v2/explorer/{network}/block/{id}"].get.responses["200"];
  block.headers.Link = {
    description: 'The block\'s transactions: `</v2/explorer/{network}/block/{hash}/txs>; rel="transactions"`',
    schema: { type: "string" },
  };
  const graphqlAnswer = (path: string) => doc.paths[path].post.responses["200"];
  for (const path of ["/v1/graphql", "/v1/preprod/graphql"]) {
    graphqlAnswer(path).headers["X-SQL-Statements"] = {
      description: "How many SQL statements the query issued",
      schema: { type: "integer" },
    };
  }
  return doc;
})();

const isFile = (file: URL) => {
  try {
    return Deno.statSync(file).isFile;
  } catch {
    return false;
  }
};

const assetsDir = new URL("../../node_modules/swagger-ui-dist/", import.meta.url);
/**
 * The files `/docs/:asset` serves, by exact name (a Map, so names such as `constructor` or `__proto__` match
 * nothing), kept only when the package really holds them.
 */
const assets: ReadonlyMap<string, { readonly file: URL; readonly type: string }> = new Map(
  ([
    ["swagger-ui.css", "text/css; charset=utf-8"],
    ["swagger-ui-bundle.js", "text/javascript; charset=utf-8"],
    ["swagger-ui-standalone-preset.js", "text/javascript; charset=utf-8"],
    ["favicon-32x32.png", "image/png"],
  ] as const).map(([name, type]) => [name, { file: new URL(name, assetsDir), type }] as const)
    .filter(([, asset]) => isFile(asset.file)),
);

/** A docs asset from swagger-ui-dist, or undefined for names that are not ours to serve. */
export const docsAsset = async (name: string): Promise<Response | undefined> => {
  const asset = assets.get(name);
  if (!asset) return undefined;
  const body = await Deno.readFile(asset.file);
  return new Response(body, {
    headers: { "content-type": asset.type, "cache-control": "public, max-age=86400" },
  });
};

export const docsPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cardano data service API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"><link rel="icon" href="/docs/favicon-32x32.png"></head>
<body><div id="ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script><script src="/docs/swagger-ui-standalone-preset.js"></script>
<script>window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#ui", presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: "StandaloneLayout" });</script>
</body></html>`;
