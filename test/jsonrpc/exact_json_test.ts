/**
 * JSON for JSON-RPC frames (src/domain/json.ts): integers beyond 2^53 stay exact both ways, and frames without a
 * 16-digit run take the plain JSON.parse path with the same result.
 */
import assert from "node:assert/strict";
import { parseExact, stringify } from "@src/domain/json.ts";

Deno.test("parseExact: integers past 2^53 as bigint, everything else as JSON.parse gives it", () => {
  assert.deepEqual(parseExact('{"a":9007199254740993,"b":-45000000000000000000,"c":9007199254740991}'), {
    a: 9007199254740993n,
    b: -45000000000000000000n,
    c: 9007199254740991,
  });
  // a long digit run inside a string takes the exact path and changes nothing
  const frame = '{"jsonrpc":"2.0","method":"nextBlock","id":"12345678901234567890","params":{"x":1.5e300}}';
  assert.deepEqual(parseExact(frame), JSON.parse(frame));
  const plain =
    '{"jsonrpc":"2.0","method":"queryNetwork/tip","id":[1,2.5,-3],"params":{"n":123456789012345}}';
  assert.deepEqual(parseExact(plain), JSON.parse(plain));
  assert.throws(() => parseExact("{"), SyntaxError);
});

Deno.test("stringify writes bigints as exact integers, and round-trips through parseExact", () => {
  const value = { lovelace: 45000000000000000123n, slot: 12n, list: [1, 2n, "3"], nested: { n: null } };
  const text = stringify(value);
  assert.equal(text, '{"lovelace":45000000000000000123,"slot":12,"list":[1,2,"3"],"nested":{"n":null}}');
  assert.deepEqual(parseExact(text), { ...value, slot: 12, list: [1, 2, "3"] });
});
