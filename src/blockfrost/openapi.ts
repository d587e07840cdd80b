/**
 * `/blockfrost/openapi.json`: the Blockfrost dialect's OpenAPI document, derived from schemas/blockfrost/ as
 * /openapi.json is from schemas/api.ts: its servers are the two networks' base URLs, every operation needs a key
 * (`project_id`), and Effect's own decode-error schema gives way to the dialect's 400 envelope.
 */
import * as OpenApi from "@effect/platform/OpenApi";
import { BlockfrostApi, blockfrostBases } from "@schemas/blockfrost/api.ts";
import { withoutTitles } from "@src/http/openapi_cleanup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export const blockfrostOpenApiPath = "/blockfrost/openapi.json";

const badRequest = { $ref: "#/components/schemas/BlockfrostBadRequest" };

export const blockfrostOpenApiDocument = (() => {
  const doc: Json = withoutTitles(OpenApi.fromApi(BlockfrostApi));
  doc.servers = [
    { url: blockfrostBases.mainnet, description: "mainnet" },
    { url: blockfrostBases.preprod, description: "preprod" },
  ];
  doc.components.securitySchemes = {
    project_id: { type: "apiKey", in: "header", name: "project_id", description: "The API key" },
  };
  doc.security = [{ project_id: [] }];
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete doc.components.schemas[name];
  for (const operations of Object.values(doc.paths) as Array<Record<string, Json>>) {
    for (const operation of Object.values(operations)) {
      operation.security = [{ project_id: [] }];
      operation.responses["400"] = {
        description: "A parameter is malformed (or given twice); the message says which",
        content: { "application/json": { schema: badRequest } },
      };
    }
  }
  return doc;
})();
