/**
 * `GET /v1/graphql` (and `/v1/preprod/graphql`): a GraphiQL page for exploring the schema, with its assets
 * served from the npm packages graphiql, react and react-dom (no CDN). The page is public; its requests carry
 * the key from the headers editor (pre-filled from `?apikey=` when the page URL has one).
 */
const isFile = (file: URL) => {
  try {
    return Deno.statSync(file).isFile;
  } catch {
    return false;
  }
};

/**
 * The files `/v1/graphiql/:asset` serves, by exact name (a Map, so names such as `toString` or `__proto__` match
 * nothing), kept only when the packages really hold them.
 */
const assets: ReadonlyMap<string, { readonly file: URL; readonly type: string }> = new Map(
  ([
    ["graphiql.min.js", "graphiql/graphiql.min.js", "text/javascript; charset=utf-8"],
    ["graphiql.min.css", "graphiql/graphiql.min.css", "text/css; charset=utf-8"],
    ["react.production.min.js", "react/umd/react.production.min.js", "text/javascript; charset=utf-8"],
    [
      "react-dom.production.min.js",
      "react-dom/umd/react-dom.production.min.js",
      "text/javascript; charset=utf-8",
    ],
  ] as const).map(([name, path, type]) =>
    [name, { file: new URL(`../../node_modules/${path}`, import.meta.url), type }] as const
  ).filter(([, asset]) => isFile(asset.file)),
);

/** A GraphiQL asset, or undefined for names that are not ours to serve. */
export const graphiqlAsset = async (name: string): Promise<Response | undefined> => {
  const asset = assets.get(name);
  if (!asset) return undefined;
  const body = await Deno.readFile(asset.file);
  return new Response(body, {
    headers: { "content-type": asset.type, "cache-control": "public, max-age=86400" },
  });
};

export const graphiqlPage = (endpoint: string): Response =>
  new Response(
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>GraphQL: ${endpoint}</title>
<link rel="stylesheet" href="/v1/graphiql/graphiql.min.css">
<style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style></head>
<body><div id="graphiql">Loading GraphiQL...</div>
<script src="/v1/graphiql/react.production.min.js"></script>
<script src="/v1/graphiql/react-dom.production.min.js"></script>
<script src="/v1/graphiql/graphiql.min.js"></script>
<script>
  const key = new URLSearchParams(location.search).get("apikey") || "";
  const fetcher = GraphiQL.createFetcher({ url: ${JSON.stringify(endpoint)} });
  ReactDOM.createRoot(document.getElementById("graphiql")).render(React.createElement(GraphiQL, {
    fetcher,
    defaultHeaders: JSON.stringify({ apikey: key || "<your API key>" }, null, 2),
    defaultEditorToolsVisibility: "headers",
    defaultQuery: "# Latest blocks with their transactions\\nquery {\\n  block(order_by: {id: desc}, limit: 5) {\\n    block_no\\n    hash\\n    time\\n    txes(limit: 3) { hash fee }\\n  }\\n}\\n",
  }));
</script>
</body></html>`,
    { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "public, max-age=3600" } },
  );
