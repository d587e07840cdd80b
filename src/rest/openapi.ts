/**
 * `/openapi.json` from the declarations in schemas/api.ts (OpenAPI 3.1, version 1.0.0), and `/docs`, a Swagger UI
 * page whose assets come from the npm package swagger-ui-dist, served from here (no CDN).
 */
import { OpenApi } from "@effect/platform";
import { Api } from "@schemas/api.ts";

/** The document, with the `apikey` scheme on every operation (Effect writes `security: []`, i.e. none, per op). */
export const openApiDocument = (() => {
  const doc = OpenApi.fromApi(Api) as unknown as Record<string, unknown> & {
    info: Record<string, unknown>;
    paths: Record<string, Record<string, Record<string, unknown>>>;
    components: Record<string, unknown>;
  };
  doc.info = {
    title: "Cardano data service",
    version: "1.0.0",
    description:
      "Cardano chain data from cardano-db-sync: public REST, explorer, GraphQL and Ogmios-compatible JSON-RPC.",
  };
  doc.components = {
    ...doc.components,
    securitySchemes: { apikey: { type: "apiKey", in: "header", name: "apikey" } },
  };
  doc.security = [{ apikey: [] }];
  for (const operations of Object.values(doc.paths)) {
    for (const operation of Object.values(operations)) operation.security = [{ apikey: [] }];
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
