/**
 * The ADA/USD price: from a quote API speaking CoinGecko's real wire format (a small local server stands in for
 * it), fetched at most once a minute, the last good price (with its true time) when the source fails, 503 before
 * any; the demo feed when no source is configured.
 */
import assert from "node:assert/strict";
import { Effect, TestClock, TestContext } from "effect";
import { makeHttpPriceFeed, parseQuote } from "@layers/price_feed.ts";
import { startRestFixture } from "../support/rest.ts";

/** A CoinGecko-like `/api/v3/simple/price` that can be told to fail. */
const fakeQuoteServer = () => {
  let mode: "ok" | "fail" = "ok";
  let calls = 0;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () => {
    calls++;
    return mode === "ok"
      ? Response.json({ cardano: { usd: 0.4321, last_updated_at: 1_795_000_000 } })
      : new Response("upstream down", { status: 502 });
  });
  return {
    url:
      `http://127.0.0.1:${server.addr.port}/api/v3/simple/price?ids=cardano&vs_currencies=usd&include_last_updated_at=true`,
    fail: () => void (mode = "fail"),
    calls: () => calls,
    close: () => server.shutdown(),
  };
};

Deno.test("quotes are read in CoinGecko's format and the generic one", () => {
  const at = new Date("2026-11-22T00:00:00Z");
  assert.deepEqual(parseQuote({ cardano: { usd: 0.5, last_updated_at: 1_795_000_000 } }, at), {
    adaUsd: 0.5,
    updatedAt: new Date(1_795_000_000_000),
  });
  assert.deepEqual(parseQuote({ ada_usd: 0.61, updated_at: "2026-11-21T10:00:00Z" }, at), {
    adaUsd: 0.61,
    updatedAt: new Date("2026-11-21T10:00:00Z"),
  });
  assert.equal(parseQuote({ cardano: { usd: "0.5" } }, at), undefined);
  assert.equal(parseQuote({ ada_usd: -1 }, at), undefined);
  assert.equal(parseQuote("nope", at), undefined);
});

Deno.test("the HTTP feed caches a minute and serves the last good price when the source fails", async () => {
  const upstream = fakeQuoteServer();
  try {
    const feed = makeHttpPriceFeed(upstream.url);
    await Effect.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.UTC(2026, 10, 22));
        const first = yield* feed.current;
        assert.deepEqual(first, { adaUsd: 0.4321, updatedAt: new Date(1_795_000_000_000) });
        yield* TestClock.adjust("30 seconds");
        yield* feed.current;
        assert.equal(upstream.calls(), 1, "within a minute nothing is fetched");
        upstream.fail();
        yield* TestClock.adjust("31 seconds");
        const stale = yield* feed.current;
        assert.equal(upstream.calls(), 2);
        assert.deepEqual(stale, first, "the last good price, with its own updated_at");
      }).pipe(Effect.provide(TestContext.TestContext)),
    );
  } finally {
    await upstream.close();
  }
});

Deno.test({
  name: "GET /api/public/price",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const upstream = fakeQuoteServer();
    const withSource = await startRestFixture("price", { PRICE_URL: upstream.url });
    const neverHad = await startRestFixture("price_down", { PRICE_URL: "http://127.0.0.1:9/none" });
    const demo = await startRestFixture("price_demo");
    try {
      await t.step("from the configured source, cached 60 seconds", async () => {
        const r = await withSource.get("/api/public/price");
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, { ada_usd: 0.4321, updated_at: new Date(1_795_000_000_000).toISOString() });
        assert.match(r.headers.get("cache-control") ?? "", /^private, max-age=\d+$/);
      });
      await t.step("a source that never answered: 503 with a clear message", async () => {
        const r = await neverHad.get("/api/public/price");
        assert.equal(r.status, 503);
        assert.equal(r.body.error, "Service Unavailable");
        assert.match(r.body.message, /^No ADA\/USD price available yet: /);
      });
      await t.step("the embedded default's demo feed says so in the logs", async () => {
        const r = await demo.get("/api/public/price");
        assert.equal(r.status, 200);
        assert.ok(r.body.ada_usd > 0.4 && r.body.ada_usd < 0.5);
        assert.ok(demo.service.lines.some((l) => l.includes("DEMO price")));
      });
    } finally {
      await withSource.close();
      await neverHad.close();
      await demo.close();
      await upstream.close();
    }
  },
});
