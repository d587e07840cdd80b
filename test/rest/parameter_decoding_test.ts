/**
 * An endpoint's parameters are decoded with its Schemas, and the decodings are kept by their text
 * (src/http/endpoint_codec.ts): a kept decoding must be the decoding, for good and bad input alike, past the
 * point where the kept ones are emptied, and for input too long to keep.
 */
import assert from "node:assert/strict";
import { Either } from "effect";
import { block, blocks } from "@schemas/api.ts";
import { endpointCodec } from "@src/http/endpoint_codec.ts";
import type { RequestInput } from "@src/http/route.ts";

const input = (params: Record<string, string>, query: Record<string, string> = {}): RequestInput => ({
  request: new Request("http://localhost/"),
  url: new URL("http://localhost/"),
  params,
  query,
});

Deno.test("a kept decoding is the decoding, for good and bad parameters, past the cache's bound", () => {
  const codec = endpointCodec(block);
  const hash = "ab".repeat(32);
  for (let round = 0; round < 2; round++) {
    // more distinct inputs than are kept, so the second round meets both kept and re-decoded ones
    for (let n = 0; n < 700; n++) {
      const got = codec.decode(input({ network: "mainnet", id: String(n) }));
      assert.deepEqual(got, Either.right({ path: { network: "mainnet", id: n }, query: undefined }));
    }
    assert.deepEqual(
      codec.decode(input({ network: "preprod", id: hash })),
      Either.right({ path: { network: "preprod", id: hash }, query: undefined }),
    );
    const bad = codec.decode(input({ network: "mainnet", id: "12x" }));
    assert.ok(Either.isLeft(bad));
    assert.equal(bad.left.parameter, "id");
    assert.match(bad.left.reason, /block number or a 64-character/);
    const wrongNetwork = codec.decode(input({ network: "testnet", id: "1" }));
    assert.ok(Either.isLeft(wrongNetwork));
    assert.equal(wrongNetwork.left.parameter, "network");
  }
});

Deno.test("query parameters are part of what is kept: another page is another decoding", () => {
  const codec = endpointCodec(blocks);
  const page = (query: Record<string, string>) => codec.decode(input({ network: "mainnet" }, query));
  const one = page({ page: "1", limit: "10" });
  const two = page({ page: "2", limit: "10" });
  assert.ok(Either.isRight(one) && Either.isRight(two));
  assert.deepEqual([one.right.query, two.right.query], [{ page: 1, limit: 10 }, { page: 2, limit: 10 }]);
  assert.deepEqual(page({ page: "1", limit: "10" }), one);
  // too long to keep: decoded (and refused) every time
  const long = page({ page: "1".repeat(600), limit: "10" });
  assert.ok(Either.isLeft(long));
  assert.equal(long.left.parameter, "page");
});
