/**
 * Answers of the service's own endpoints: `/health` (no key), `/v1/key` (what the calling key is and may do) and
 * `/v1/ogmios/health` (Ogmios v6's health document, which the official client reads before connecting).
 */
import { Schema } from "effect";
import { DateTime } from "./primitives.ts";

const NetworkHealth = Schema.Struct({
  status: Schema.Literal("ok", "unavailable"),
  database: Schema.Literal("postgres", "pglite"),
  demoChain: Schema.Boolean.annotations({ description: "true for the generated demo chain (a devnet)" }),
  tip: Schema.NullOr(Schema.Struct({
    blockNo: Schema.Int,
    slotNo: Schema.Int,
    epochNo: Schema.Int,
    time: DateTime,
  })),
  error: Schema.optional(Schema.String).annotations({ description: "why the database did not answer" }),
}).annotations({ identifier: "NetworkHealth" });

export const Health = Schema.Struct({
  status: Schema.Literal("ok", "unavailable"),
  networks: Schema.Struct({ mainnet: NetworkHealth, preprod: NetworkHealth }),
}).annotations({ identifier: "Health" });

/** A limit, or null for none. */
const limit = Schema.NullOr(Schema.Int);

export const KeyInfo = Schema.Struct({
  name: Schema.String,
  hint: Schema.String.annotations({ description: "the key's prefix and last characters; never the key" }),
  tier: Schema.Literal("FREE", "PAID"),
  status: Schema.Literal("active", "inactive", "revoked"),
  createdAt: DateTime,
  expiresAt: Schema.NullOr(DateTime),
  limits: Schema.Struct({
    requestsPerSecond: limit,
    graphqlRequestsPerSecond: limit,
    requestsPerDay: limit,
    submissionsPerHour: limit,
  }),
}).annotations({ identifier: "KeyInfo" });

export const OgmiosHealth = Schema.Struct({
  startTime: DateTime,
  lastKnownTip: Schema.Union(
    Schema.Literal("origin"),
    Schema.Struct({ slot: Schema.Int, id: Schema.String, height: Schema.Int }),
  ),
  lastTipUpdate: DateTime,
  networkSynchronization: Schema.Number,
  currentEra: Schema.String,
  connectionStatus: Schema.Literal("connected", "disconnected"),
  currentEpoch: Schema.Int,
  network: Schema.Literal("mainnet", "preprod"),
  version: Schema.String,
}).annotations({ identifier: "OgmiosHealth" });
