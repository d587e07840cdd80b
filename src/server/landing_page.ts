/**
 * `GET /`: a small page for whoever opens the service in a browser: what it serves, where the docs, GraphiQL and
 * health answers are, and how to get a key. Server-rendered, no script, nothing from a CDN.
 */
export const landingHtml = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cardano data service</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 46em; margin: 2em auto; padding: 0 1em; line-height: 1.5; color: #222; }
  code { background: #f3f3f3; padding: 0 .25em; border-radius: 3px; }
  li { margin: .3em 0; }
  .top { text-align: right; margin: 0; }
</style></head>
<body>
<p class="top"><a href="/signup">Sign up</a> · <a href="/login">Log in</a></p>
<h1>Cardano data service</h1>
<p>Cardano chain data for <code>mainnet</code> and <code>preprod</code> from cardano-db-sync databases: REST,
explorer, GraphQL and Ogmios-compatible JSON-RPC.</p>
<h2>Start here</h2>
<ul>
  <li><a href="/docs">API documentation</a> (Swagger UI) and the <a href="/openapi.json">OpenAPI document</a></li>
  <li>GraphiQL: <a href="/v1/graphql">mainnet</a> and <a href="/v1/preprod/graphql">preprod</a></li>
  <li><a href="/health">Health</a>: each network's tip and database (no key needed)</li>
  <li>JSON-RPC (Ogmios): <code>POST /v1/ogmios</code> or a WebSocket on <code>/v1/ogmios?apikey=KEY</code>
    (<code>/v1/preprod/ogmios</code> for preprod)</li>
</ul>
<h2>API keys</h2>
<p><a href="/signup">Sign up</a> for a FREE key, or <a href="/login">log in</a> to manage your keys and see their
usage.</p>
<p>Every endpoint but this page, the docs and <code>/health</code> needs a key, sent as the <code>apikey</code>
header (or <code>Authorization: Bearer KEY</code>). On your own instance the operator can also create one with
<code>npm run keys -- create --tier free --name me</code> (it is printed once). <code>GET /v1/key</code> shows a
key's tier and limits.</p>
<pre><code>curl -H "apikey: YOUR_KEY" http://THIS-HOST/v2/explorer/mainnet/stats</code></pre>
</body></html>`;
