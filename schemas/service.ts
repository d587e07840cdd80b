/**
 * Answers of the service's own endpoints: `/health` (no key), `/v1/key` (what the calling key is and may do) and
 * `/v1/ogmios/health` (Ogmios v6's health document, which the official client reads before connecting).
 */
import { Schema } from "effect";
import { DateTime } from "./primitives.ts";

/** One URL of a chain database given as several (a primary and replicas, or replicas only). */
const ChainDatabaseMember = Schema.Struct({
  location: Schema.String.annotations({ description: "the member's URL, password masked" }),
  state: Schema.Literal("connecting", "in use", "catching up", "lagging", "down").annotations({
    description:
      "in use: serving reads; catching up: answering, below the reported tip; lagging: more than " +
      "REPLICA_MAX_LAG_BLOCKS behind the most advanced member; down: not answering",
  }),
  blockNo: Schema.NullOr(Schema.Int).annotations({ description: "its tip as last read" }),
  reads: Schema.Int.annotations({ description: "statements sent to it since the start" }),
  reason: Schema.optional(Schema.String).annotations({ description: "why it is out of use" }),
  since: DateTime.annotations({ description: "when its state last changed" }),
}).annotations({ identifier: "ChainDatabaseMember" });

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
  members: Schema.optional(Schema.Array(ChainDatabaseMember)).annotations({
    description: "a database given as several URLs: each one's state (the tip is the lowest of those in use)",
  }),
}).annotations({ identifier: "NetworkHealth" });

const DependencyHealth = Schema.Struct({
  state: Schema.Literal("starting", "ok", "down"),
  lastError: Schema.optional(Schema.String).annotations({
    description: "the last failure, kept after recovery",
  }),
  since: DateTime.annotations({ description: "when the state last changed" }),
  critical: Schema.Boolean.annotations({
    description: "databases decide readiness; Redis and Ogmios upstreams only degrade the service",
  }),
}).annotations({ identifier: "DependencyHealth" });

/**
 * Liveness: 200 while the process serves. `starting` (layers still waiting for their dependencies; `networks`
 * empty), `ok`, `degraded` (a dependency is down: see `dependencies` and `/ready`) or `stopping` (draining).
 */
export const Health = Schema.Struct({
  status: Schema.Literal("starting", "ok", "degraded", "stopping"),
  networks: Schema.Union(
    Schema.Struct({ mainnet: NetworkHealth, preprod: NetworkHealth }),
    Schema.Struct({}),
  ),
  dependencies: Schema.Record({ key: Schema.String, value: DependencyHealth }),
}).annotations({ identifier: "Health" });

/**
 * Readiness: 200 only when started and every database answers (a 503 `{error, message}` otherwise); a database
 * given as several URLs answers while one of them is in use.
 */
export const Ready = Schema.Struct({
  status: Schema.Literal("ready"),
  members: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Array(ChainDatabaseMember) }))
    .annotations({
      description: "per network given as several URLs, each one's state (present only for those networks)",
    }),
}).annotations({ identifier: "Ready" });

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
  budget: Schema.Struct({
    shared: Schema.Boolean.annotations({
      description: "true when every FREE key of the key's account spends these same limits (one budget)",
    }),
    keys: Schema.NullOr(Schema.Int).annotations({
      description: "how many active keys spend this budget (1 for a key's own; null when unknown just now)",
    }),
    description: Schema.String,
    requestsToday: Schema.NullOr(Schema.Int).annotations({
      description:
        "requests this budget counted today (UTC), all its keys together; null without a daily quota",
    }),
    requestsLeftToday: limit,
    submissionsLastHour: Schema.NullOr(Schema.Int),
    submissionsLeftThisHour: limit,
  }).annotations({ description: "whose limits the key spends, and what is spent of them" }),
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
