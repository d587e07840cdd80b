import assert from "node:assert/strict";
import { Effect } from "effect";
import { makeMemoryCache } from "@layers/cache.ts";
import { approximateBytes } from "@layers/approximate_bytes.ts";

const page = (rows: number, tag: string) =>
  Array.from(
    { length: rows },
    (_, i) => ({ txHash: `${tag}${i}`.padEnd(64, "0"), value: "1000000", index: i }),
  );

Deno.test("the cache is bounded by bytes as well as entries", async (t) => {
  await t.step("an approximate size that follows the data's own size", () => {
    const small = approximateBytes(page(1, "a"));
    const large = approximateBytes(page(100, "a"));
    assert.ok(large > 90 * small && large < 110 * small, `${small} vs ${large}`);
    // UTF-16 strings: at least the JSON's characters twice
    const json = JSON.stringify(page(100, "a")).length;
    assert.ok(large >= 2 * json, `${large} bytes for ${json} characters of JSON`);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    assert.ok(approximateBytes(cyclic) > 0);
  });

  await t.step("many large values: the total stays under maxBytes, the newest stay", async () => {
    const maxBytes = 2 * 1024 * 1024;
    const cache = makeMemoryCache({ maxEntries: 10_000, maxBytes });
    for (let i = 0; i < 500; i++) {
      await Effect.runPromise(
        cache.getOrCompute(`page:${i}`, "1 minute", Effect.sync(() => page(100, `${i}:`))),
      );
    }
    const { entries, bytes } = cache.size();
    assert.ok(bytes <= maxBytes, `${bytes} bytes held`);
    assert.ok(entries > 10 && entries < 500, `${entries} entries held`);
    let computed = false;
    await Effect.runPromise(cache.getOrCompute("page:499", "1 minute", Effect.sync(() => (computed = true))));
    assert.equal(computed, false, "the newest entry is still there");
    await Effect.runPromise(cache.getOrCompute("page:0", "1 minute", Effect.sync(() => (computed = true))));
    assert.equal(computed, true, "the oldest entry was dropped");
  });

  await t.step("a value over an eighth of the bound is answered but not kept", async () => {
    const cache = makeMemoryCache({ maxEntries: 100, maxBytes: 64 * 1024 });
    let runs = 0;
    const compute = Effect.sync(() => (runs++, page(200, "big")));
    const first = await Effect.runPromise(cache.getOrCompute("big", "1 minute", compute));
    assert.equal(first.length, 200);
    await Effect.runPromise(cache.getOrCompute("big", "1 minute", compute));
    assert.equal(runs, 2);
    assert.deepEqual(cache.size(), { entries: 0, bytes: 0 });
  });

  await t.step("replacing a key does not count its bytes twice", async () => {
    const cache = makeMemoryCache({ maxEntries: 100, maxBytes: 1024 * 1024 });
    await Effect.runPromise(cache.getOrCompute("k", 0, Effect.succeed(page(10, "x"))));
    const once = cache.size().bytes;
    for (let i = 0; i < 5; i++) {
      await Effect.runPromise(cache.getOrCompute("k", 0, Effect.succeed(page(10, "x"))));
    }
    assert.equal(cache.size().bytes, once);
    assert.equal(cache.size().entries, 1);
  });

  await t.step("an entry read since it was stored outlives the unread ones (CLOCK)", async () => {
    const cache = makeMemoryCache({ maxEntries: 3, maxBytes: 1024 * 1024 });
    const computed: Array<string> = [];
    const get = (key: string) =>
      Effect.runPromise(cache.getOrCompute(key, "1 minute", Effect.sync(() => (computed.push(key), key))));
    for (const key of ["a", "b", "c"]) await get(key);
    await get("a"); // a hit: marked, not computed
    await get("d"); // full: the cursor passes over a (clearing its mark) and drops b
    assert.deepEqual(computed, ["a", "b", "c", "d"]);
    await get("a");
    await get("c");
    assert.deepEqual(computed, ["a", "b", "c", "d"], "a and c are still held");
    await get("b");
    assert.deepEqual(computed, ["a", "b", "c", "d", "b"], "b was the one dropped");
    assert.equal(cache.size().entries, 3);
  });

  await t.step("concurrent callers of one key share one computation", async () => {
    const cache = makeMemoryCache();
    let runs = 0;
    const slow = Effect.sleep("20 millis").pipe(Effect.map(() => ++runs));
    const all = await Effect.runPromise(
      Effect.all(Array.from({ length: 10 }, () => cache.getOrCompute("same", "1 minute", slow)), {
        concurrency: "unbounded",
      }),
    );
    assert.deepEqual(new Set(all), new Set([1]));
  });
});
