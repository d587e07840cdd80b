/**
 * Entry point: read the configuration, build the layers (opening or seeding the databases), serve HTTP, and shut
 * down cleanly on SIGINT/SIGTERM. A bad setting or an unservable database stops the start with one clear line.
 */
import { Effect, Layer, ManagedRuntime, Option } from "effect";
import { networks } from "@schemas/network.ts";
import { appConfig, describeConfigError } from "@layers/config.ts";
import { makeAppLayer } from "@layers/app_layer.ts";
import { JsonLoggerLive } from "@layers/logger.ts";
import { lockDataDir } from "@layers/data_dir_lock.ts";
import { memoryReport } from "@layers/embedded_memory.ts";
import { makePrivateTree, restrictUmask } from "@layers/private_files.ts";
import { makeHandler } from "./server/router.ts";

// performance.now() counts from the process's start: what has passed here went to loading the modules
const modulesMs = Math.round(performance.now());
// data files are the owner's only (PGlite's own files are also made private once opened: private_files.ts)
restrictUmask();
const config = await Effect.runPromise(Effect.either(appConfig));
if (config._tag === "Left") {
  console.error(`Invalid configuration: ${describeConfigError(config.left)}`);
  Deno.exit(1);
}
const settings = config.right;
const logger = JsonLoggerLive(settings.logLevel);
const runtime = ManagedRuntime.make(Layer.provideMerge(makeAppLayer(settings), logger));
const log = (message: string, annotations: Record<string, unknown> = {}) =>
  Effect.runSync(Effect.logInfo(message).pipe(Effect.annotateLogs(annotations), Effect.provide(logger)));

const embedded = networks.filter((n) => Option.isNone(settings.networks[n].databaseUrl));
if (embedded.length > 0 || Option.isNone(settings.serviceDatabaseUrl)) {
  // one process per DATA_DIR: a second one stops here at once, naming the first
  await lockDataDir(settings.dataDir).catch((error) => {
    console.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  });
}
log(
  `starting on http://${
    settings.host.includes(":") ? `[${settings.host}]` : settings.host
  }:${settings.port}` +
    (embedded.length > 0
      ? `; ${
        embedded.join(" and ")
      } served from a GENERATED DEMO CHAIN in embedded databases under ${settings.dataDir}`
      : ""),
  { modulesMs },
);

try {
  await runtime.runPromise(Effect.void);
} catch (error) {
  console.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
  await runtime.dispose().catch(() => {});
  Deno.exit(1);
}

if (embedded.length > 0 || Option.isNone(settings.serviceDatabaseUrl)) {
  // PGlite creates files 0666 (the devnet's catch-up just did): owner-only again now and every minute; the
  // directories are 0700 meanwhile, so nobody else reaches them
  const protect = () =>
    makePrivateTree(settings.dataDir).catch((e) => log(`cannot protect ${settings.dataDir}: ${e}`));
  await protect();
  Deno.unrefTimer(setInterval(protect, 60_000));
}

const handler = makeHandler(runtime);
const server = Deno.serve({
  hostname: settings.host,
  port: settings.port,
  onListen: ({ hostname, port }) =>
    log(`listening on http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`, {
      startupMs: Math.round(performance.now()),
      ...memoryReport(),
    }),
}, handler);

const shutdown = async () => {
  log("shutting down");
  await server.shutdown();
  await runtime.dispose();
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", shutdown);
Deno.addSignalListener("SIGTERM", shutdown);

// ---- METRICS_PORT: the Prometheus exposition on a listener of its own (no token; keep the port private) ----
// (imported here, so this block stays separate from the start-up above)
if (Option.isSome(settings.metricsPort)) {
  const { Metrics } = await import("@layers/metrics.ts");
  const { metricsListener } = await import("./server/metrics_http.ts");
  const metrics = runtime.runSync(Metrics);
  try {
    Deno.serve({
      hostname: settings.host,
      port: settings.metricsPort.value,
      onListen: ({ hostname, port }) =>
        log(
          `metrics served on http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}/metrics`,
        ),
    }, metricsListener(metrics));
  } catch (error) {
    console.error(`Cannot serve METRICS_PORT: ${error instanceof Error ? error.message : String(error)}`);
    await server.shutdown();
    await runtime.dispose();
    Deno.exit(1);
  }
}
