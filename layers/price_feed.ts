/**
 * `PriceFeed`: the ADA/USD price (spec: /api/public/price, cached 60 s). From an HTTP quote API (`PRICE_URL`:
 * CoinGecko's simple-price format `{"cardano":{"usd","last_updated_at"}}`, or `{"ada_usd","updated_at"}`), fetched
 * at most once a minute; when the source fails, the last good price is served with its true `updated_at`; before
 * any good price, `PriceUnavailable`. Without `PRICE_URL`, a demo feed (logged as such) for the embedded default.
 */
import { Clock, Context, Effect, Layer, Option } from "effect";
import { PriceUnavailable } from "@src/domain/errors.ts";
import { AppConfig } from "./config.ts";

export interface Price {
  readonly adaUsd: number;
  readonly updatedAt: Date;
}

export interface PriceFeedShape {
  readonly current: Effect.Effect<Price, PriceUnavailable>;
  /** "http" or "demo": where prices come from. */
  readonly source: "http" | "demo";
}

export class PriceFeed extends Context.Tag("PriceFeed")<PriceFeed, PriceFeedShape>() {}

export const priceTtlMs = 60_000;

/** Reads a quote in either supported format; undefined when the body is neither. */
export const parseQuote = (body: unknown, fetchedAt: Date): Price | undefined => {
  if (typeof body !== "object" || body === null) return undefined;
  const b = body as Record<string, unknown>;
  const gecko = b.cardano as Record<string, unknown> | undefined;
  const price = typeof gecko?.usd === "number"
    ? gecko.usd
    : typeof b.ada_usd === "number"
    ? b.ada_usd
    : undefined;
  if (price === undefined || !Number.isFinite(price) || price <= 0) return undefined;
  const stamp = gecko?.last_updated_at ?? b.updated_at;
  const updatedAt = typeof stamp === "number"
    ? new Date(stamp * 1000)
    : typeof stamp === "string" && !Number.isNaN(Date.parse(stamp))
    ? new Date(stamp)
    : fetchedAt;
  return { adaUsd: price, updatedAt };
};

export const makeHttpPriceFeed = (url: string, timeoutMs = 3_000): PriceFeedShape => {
  let last: Price | undefined;
  let fetchedAt = 0;
  let lastError = "no price fetched yet";
  const refresh = Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(url, {
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
      if (!response.ok) throw new Error(`the price source answered HTTP ${response.status}`);
      const quote = parseQuote(await response.json(), new Date());
      if (!quote) throw new Error("the price source answered in an unknown format");
      return quote;
    },
    catch: (e) => (e instanceof Error ? e.message : String(e)),
  });
  return {
    source: "http",
    current: Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis;
      if (now - fetchedAt >= priceTtlMs) {
        fetchedAt = now;
        const fresh = yield* Effect.either(refresh);
        if (fresh._tag === "Right") last = fresh.right;
        else {
          lastError = fresh.left;
          yield* Effect.logWarning(`price source failed: ${fresh.left}; serving the last good price`);
        }
      }
      if (last) return last;
      return yield* new PriceUnavailable({ message: `No ADA/USD price available yet: ${lastError}` });
    }),
  };
};

/** A demo quote that drifts smoothly around $0.45, stamped to the start of the minute; for demo chains only. */
export const makeDemoPriceFeed = (): PriceFeedShape => ({
  source: "demo",
  current: Effect.map(Clock.currentTimeMillis, (now) => {
    const minute = now - (now % priceTtlMs);
    const adaUsd = Math.round((0.45 + 0.03 * Math.sin(minute / 3_600_000)) * 10_000) / 10_000;
    return { adaUsd, updatedAt: new Date(minute) };
  }),
});

export const PriceFeedLive: Layer.Layer<PriceFeed, never, AppConfig> = Layer.effect(
  PriceFeed,
  Effect.gen(function* () {
    const { priceUrl } = yield* AppConfig;
    if (Option.isSome(priceUrl)) return makeHttpPriceFeed(priceUrl.value);
    yield* Effect.logWarning(
      "price: no PRICE_URL set, /api/public/price serves a DEMO price, not a market quote",
    );
    return makeDemoPriceFeed();
  }),
);
