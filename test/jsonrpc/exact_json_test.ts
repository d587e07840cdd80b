/**
 * JSON for JSON-RPC frames (src/domain/json.ts): integers beyond 2^53 stay exact both ways, and frames without a
 * 16-digit run take the plain JSON.parse path with the same result.
 */
import assert from "node:assert/strict";
import { parseExact, stringify, stringifyExact } from "@src/domain/json.ts";

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

Deno.test("stringifyExact and stringify write bigints as exact integers, and round-trip through parseExact", () => {
  const value = { lovelace: 45000000000000000123n, slot: 12n, list: [1, 2n, "3"], nested: { n: null } };
  const expected = '{"lovelace":45000000000000000123,"slot":12,"list":[1,2,"3"],"nested":{"n":null}}';
  for (const write of [stringifyExact, stringify]) {
    const text = write(value);
    assert.equal(text, expected, write.name);
    assert.deepEqual(parseExact(text), { ...value, slot: 12, list: [1, 2, "3"] });
    // the prototype is left as it was: a bigint outside these calls is refused as JSON.stringify refuses it
    assert.equal((BigInt.prototype as { toJSON?: unknown }).toJSON, undefined);
    assert.throws(() => JSON.stringify(1n), TypeError);
  }
  assert.equal(
    stringify({ a: [1, "b", null], d: new Date(0) }),
    '{"a":[1,"b",null],"d":"1970-01-01T00:00:00.000Z"}',
  );
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  assert.throws(() => stringify(circular), TypeError);
});
