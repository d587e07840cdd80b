/** Accept-Encoding negotiation and the cases compression must leave alone. */
import assert from "node:assert/strict";
import { minimumBytes, negotiate, negotiateEncoding } from "@src/http/compression.ts";
import { withKnownBody } from "@src/http/known_body.ts";

Deno.test("Accept-Encoding: q-values, *, identity and ties", () => {
  const cases: Array<[string | null, string | undefined]> = [
    [null, undefined],
    ["", undefined],
    ["gzip", "gzip"],
    ["br", "br"],
    ["gzip, br", "br"],
    ["br;q=0.4, gzip;q=0.8", "gzip"],
    ["BR;Q=1, GZIP;Q=0.5", "br"],
    ["x-gzip", "gzip"],
    ["*", "br"],
    ["*;q=0", undefined],
    ["gzip;q=0, *", "br"],
    ["br;q=0, gzip;q=0", undefined],
    ["identity", undefined],
    ["identity;q=1, gzip;q=0.5", undefined],
    ["identity;q=0.1, gzip;q=0.5", "gzip"],
    ["deflate, compress", undefined],
    ["gzip;q=bogus", "gzip"],
  ];
  for (const [header, expected] of cases) assert.equal(negotiate(header), expected, String(header));
});

const big = JSON.stringify({ text: "x".repeat(minimumBytes * 4) });
const ask = (init: RequestInit = {}, encoding = "gzip") =>
  new Request("http://x/", { ...init, headers: { "accept-encoding": encoding } });

Deno.test("compression leaves 204, 304, HEAD, encoded, small and binary answers alone", async () => {
  const json = { "content-type": "application/json" };
  const untouched: Array<[string, Request, Response]> = [
    ["204", ask(), new Response(null, { status: 204, headers: json })],
    ["304", ask(), new Response(null, { status: 304, headers: { etag: 'W/"a"' } })],
    ["HEAD", ask({ method: "HEAD" }), new Response(big, { headers: json })],
    ["encoded", ask(), new Response(big, { headers: { ...json, "content-encoding": "br" } })],
    ["png", ask(), new Response(big, { headers: { "content-type": "image/png" } })],
  ];
  for (const [name, request, response] of untouched) {
    const out = await negotiateEncoding(request, response);
    assert.equal(out.headers.get("content-encoding"), name === "encoded" ? "br" : null, name);
    if (name === "encoded") assert.equal(await out.text(), big, "passed through as is");
  }
  const small = await negotiateEncoding(ask(), new Response('{"a":1}', { headers: json }));
  assert.equal(small.headers.get("content-encoding"), null);
  assert.equal(await small.text(), '{"a":1}');
  // its size known only once read: it might have been compressed, so it varies
  assert.equal(small.headers.get("vary"), "Accept-Encoding");
  const known = await negotiateEncoding(
    ask(),
    withKnownBody(new Response('{"a":1}', { headers: json }), '{"a":1}'),
  );
  assert.equal(known.headers.get("content-encoding"), null);
  // known small: the same bytes whatever the client accepts, nothing for a cache to vary on
  assert.equal(known.headers.get("vary"), null);
  // an answer no cache may keep needs no Vary, compressed or not
  const large = "x".repeat(5_000);
  for (const accepted of ["identity", "br"]) {
    const kept = await negotiateEncoding(
      ask({}, accepted),
      withKnownBody(
        new Response(large, { headers: { ...json, "cache-control": "private, no-store" } }),
        large,
      ),
    );
    assert.equal(kept.headers.get("content-encoding"), accepted === "br" ? "br" : null);
    assert.equal(kept.headers.get("vary"), null, `no-store, Accept-Encoding ${accepted}`);
  }
});

Deno.test("a compressed answer decodes to the same bytes, keeps its status and makes a strong ETag weak", async () => {
  for (const encoding of ["gzip", "br"]) {
    const out = await negotiateEncoding(
      ask({}, encoding),
      new Response(big, {
        status: 404,
        headers: { "content-type": "text/html", etag: '"abc"', vary: "Origin" },
      }),
    );
    assert.equal(out.status, 404);
    assert.equal(out.headers.get("content-encoding"), encoding);
    assert.equal(out.headers.get("etag"), 'W/"abc"');
    assert.equal(out.headers.get("vary"), "Origin, Accept-Encoding");
    const bytes = new Uint8Array(await out.arrayBuffer());
    assert.ok(bytes.length < big.length / 10);
    const decoded = await new Response(
      new Blob([bytes]).stream().pipeThrough(new DecompressionStream(encoding === "br" ? "brotli" : "gzip")),
    ).text();
    assert.equal(decoded, big);
  }
});
