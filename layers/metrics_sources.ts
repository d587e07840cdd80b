/**
 * The figures other parts keep, read into `Metrics` when scraped: database connections and waits per database
 * (`pool_use.ts`), the cache, and each network's devnet. Nothing is counted here and nothing runs between
 * scrapes: every reader asks its part for the figures it already holds.
 */
import { Effect, Layer } from "effect";
import { networks } from "@schemas/network.ts";
import { Cache } from "./cache.ts";
import { ChainDatabases } from "./chain_db.ts";
import { Metrics, type Sample } from "./metrics.ts";
import { NodeClients } from "./node_client.ts";
import { type PoolUse, poolUseOf } from "./pool_use.ts";
import { ServiceDatabase } from "./service_db.ts";

const dbLabels = ["database", "backend"];

export const MetricsSourcesLive: Layer.Layer<
  never,
  never,
  Metrics | ChainDatabases | ServiceDatabase | Cache | NodeClients
> = Layer.effectDiscard(Effect.gen(function* () {
  const metrics = yield* Metrics;
  const chains = yield* ChainDatabases;
  const service = yield* ServiceDatabase;
  const cache = yield* Cache;
  const nodes = yield* NodeClients;

  const databases = [
    ...chains.all.map((c) => ({ name: c.network as string, backend: c.backend, sql: c.sql })),
    { name: "service", backend: service.backend, sql: service.sql },
  ];
  const perDatabase = (read: (use: PoolUse) => number | undefined) => (): Array<Sample> =>
    databases.flatMap((db) => {
      const use = poolUseOf(db.sql);
      const value = use && read(use);
      return value === undefined ? [] : [[[db.name, db.backend], value] as const];
    });
  const db = (
    name: string,
    help: string,
    type: "gauge" | "counter",
    read: (use: PoolUse) => number | undefined,
  ) => metrics.collect(name, help, type, dbLabels, perDatabase(read));
  db(
    "cds_db_connections_open",
    "Database connections open (an embedded database has one session).",
    "gauge",
    (u) => u.open,
  );
  db("cds_db_connections_busy", "Database connections in use.", "gauge", (u) => u.busy);
  db(
    "cds_db_connections_waiting",
    "Callers waiting for a database connection (the embedded session's queue).",
    "gauge",
    (u) => u.waiting,
  );
  db("cds_db_acquisitions_total", "Database connections handed out.", "counter", (u) => u.acquisitions);
  db(
    "cds_db_acquire_wait_seconds_total",
    "Seconds callers waited for a database connection, in all.",
    "counter",
    (u) => u.waitSeconds,
  );
  db(
    "cds_db_restarts_total",
    "Embedded database workers restarted (a statement over its time, a failed worker).",
    "counter",
    (u) => u.restarts,
  );

  const cached = (
    name: string,
    help: string,
    type: "gauge" | "counter",
    key: keyof ReturnType<typeof cache.stats>,
  ) => metrics.collect(name, help, type, [], () => [[[], cache.stats()[key]]]);
  cached("cds_cache_hits_total", "Cache lookups answered without computing.", "counter", "hits");
  cached("cds_cache_misses_total", "Cache lookups that computed the value.", "counter", "misses");
  cached("cds_cache_entries", "Values held in the cache.", "gauge", "entries");
  cached("cds_cache_bytes", "Approximate bytes of the values held in the cache.", "gauge", "bytes");

  const devnets = networks.flatMap((network) => {
    const stats = nodes.get(network).devnet;
    return stats ? [{ network, stats }] : [];
  });
  if (devnets.length === 0) return;
  const devnet = (
    name: string,
    help: string,
    type: "gauge" | "counter",
    read: (s: ReturnType<typeof devnets[number]["stats"]>) => number,
  ) =>
    metrics.collect(
      name,
      help,
      type,
      ["network"],
      () => devnets.map((d) => [[d.network], read(d.stats())] as const),
    );
  devnet(
    "cds_devnet_mempool_transactions",
    "Transactions in the devnet's mempool.",
    "gauge",
    (s) => s.mempoolTransactions,
  );
  devnet(
    "cds_devnet_mempool_bytes",
    "Bytes of the transactions in the devnet's mempool.",
    "gauge",
    (s) => s.mempoolBytes,
  );
  devnet(
    "cds_devnet_waiting_submissions",
    "Submissions waiting for room in the devnet's mempool.",
    "gauge",
    (s) => s.waitingSubmissions,
  );
  devnet(
    "cds_devnet_blocks_total",
    "Blocks the devnet produced since the start.",
    "counter",
    (s) => s.blocksProduced,
  );
  metrics.collect(
    "cds_devnet_dropped_transactions_total",
    "Transactions dropped from the devnet's mempool: isolation (their block could not be written with them), " +
      "expired, orphaned (they spent a dropped one's outputs).",
    "counter",
    ["network", "reason"],
    () =>
      devnets.flatMap((d) => {
        const dropped = d.stats().dropped;
        return (["isolation", "expired", "orphaned"] as const).map((r) =>
          [[d.network, r], dropped[r]] as const
        );
      }),
  );
}));
