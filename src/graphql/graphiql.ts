/**
 * `GET /v1/graphql` (and `/v1/preprod/graphql`): a GraphiQL page for exploring the schema, with its assets
 * served from the npm packages graphiql, react and react-dom (no CDN). The page is public; its requests carry
 * the key the user types into the page.
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

/** The key field's message when no key is set; GraphiQL shows it instead of sending a request without one. */
export const noKeyMessage =
  "Enter your API key in the field above to run queries (kept in this tab's sessionStorage, sent as the apikey header).";

/**
 * The page for one endpoint. The key is asked for in a small form above the editor (or taken once from
 * `?apikey=`, then dropped from the address bar) and kept in sessionStorage; without one nothing is sent.
 * One inline script: the server allows it by its hash (Content-Security-Policy), so no other inline script runs.
 */
export const graphiqlHtml = (endpoint: string): string =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>GraphQL: ${endpoint}</title>
<link rel="stylesheet" href="/v1/graphiql/graphiql.min.css">
<style>
  body { margin: 0; height: 100vh; display: flex; flex-direction: column; font-family: system-ui, sans-serif; }
  #key-form { display: flex; gap: 8px; align-items: center; padding: 6px 12px; border-bottom: 1px solid #ddd; font-size: 14px; }
  #key-form input { width: 24em; font-family: monospace; }
  #key-status { color: #555; }
  #graphiql { flex: 1; min-height: 0; }
</style></head>
<body>
<form id="key-form"><label for="apikey">API key</label>
<input id="apikey" name="apikey" type="password" autocomplete="off" spellcheck="false" placeholder="cds_...">
<button type="submit">Use key</button><button type="button" id="forget-key">Forget</button>
<span id="key-status" role="status"></span></form>
<div id="graphiql">Loading GraphiQL...</div>
<script src="/v1/graphiql/react.production.min.js"></script>
<script src="/v1/graphiql/react-dom.production.min.js"></script>
<script src="/v1/graphiql/graphiql.min.js"></script>
<script>
  const endpoint = ${JSON.stringify(endpoint)};
  const stored = "cds-apikey";
  const fromUrl = new URLSearchParams(location.search).get("apikey");
  if (fromUrl) {
    sessionStorage.setItem(stored, fromUrl.trim());
    history.replaceState(null, "", location.pathname);
  }
  const input = document.getElementById("apikey");
  const status = document.getElementById("key-status");
  const root = ReactDOM.createRoot(document.getElementById("graphiql"));
  const noKey = async () => ({ errors: [{ message: ${JSON.stringify(noKeyMessage)} }] });
  const render = () => {
    const key = sessionStorage.getItem(stored) || "";
    input.value = key;
    status.textContent = key ? "Key set for this tab." : "No key yet: queries need one.";
    root.render(React.createElement(GraphiQL, {
      key: key ? "with-key:" + key.length : "no-key",
      fetcher: key ? GraphiQL.createFetcher({ url: endpoint, headers: { apikey: key } }) : noKey,
      defaultQuery: "# Latest blocks with their transactions\\nquery {\\n  block(order_by: {id: desc}, limit: 5) {\\n    block_no\\n    hash\\n    time\\n    txes(limit: 3) { hash fee }\\n  }\\n}\\n",
    }));
    if (!key) input.focus();
  };
  document.getElementById("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (key) sessionStorage.setItem(stored, key);
    else sessionStorage.removeItem(stored);
    render();
  });
  document.getElementById("forget-key").addEventListener("click", () => {
    sessionStorage.removeItem(stored);
    render();
  });
  render();
</script>
</body></html>`;
