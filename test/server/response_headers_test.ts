/**
 * src/http/response_headers.ts: an answer built through Deno's fast path (a lone content-type) carries every
 * header it was given, whichever form they came in, and a later content-type replaces the first.
 */
import assert from "node:assert/strict";
import { responseWith, setHeaders } from "@src/http/response_headers.ts";
import { jsonText } from "@src/http/json.ts";

const pairs = (r: Response) => [...r.headers].sort(([a], [b]) => a.localeCompare(b));

Deno.test("responseWith: the content-type and every given header, from an object, pairs or a Headers", async () => {
  const expected = [["cache-control", "no-store"], ["content-type", "application/json"], ["etag", 'W/"1"']];
  for (
    const given of [
      { "cache-control": "no-store", etag: 'W/"1"' },
      [["cache-control", "no-store"], ["etag", 'W/"1"']] as Array<[string, string]>,
      new Headers({ "cache-control": "no-store", etag: 'W/"1"' }),
    ]
  ) {
    const r = responseWith("{}", 201, "application/json", given);
    assert.equal(r.status, 201);
    assert.deepEqual(pairs(r), expected);
    assert.equal(await r.text(), "{}");
  }
  assert.deepEqual(pairs(responseWith(null, 204, "text/plain")), [["content-type", "text/plain"]]);
});

Deno.test("a given content-type replaces the first; jsonText keeps its body and headers", async () => {
  assert.equal(
    responseWith("x", 200, "text/plain", { "content-type": "text/html" }).headers.get("content-type"),
    "text/html",
  );
  const headers = new Headers();
  setHeaders(headers, { a: "1" });
  setHeaders(headers, [["b", "2"]]);
  assert.deepEqual([...headers], [["a", "1"], ["b", "2"]]);
  const r = jsonText('{"a":1}', 404, { "cache-control": "no-store" });
  assert.equal(r.status, 404);
  assert.equal(r.headers.get("content-type"), "application/json; charset=utf-8");
  assert.equal(r.headers.get("cache-control"), "no-store");
  assert.equal(await r.text(), '{"a":1}');
});
