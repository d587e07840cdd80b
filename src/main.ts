/**
 * Entry point: read the configuration, open the port at once with the start-up handler (so `/health` and
 * `/ready` answer while databases, Redis and Ogmios upstreams are waited for, up to STARTUP_TIMEOUT), build the
 * layers, then swap in the real handler. SIGINT/SIGTERM drain: in-flight requests finish (within 10 s) while
 * new ones get 503, then the port closes, WebSockets close with 1001, usage is flushed, exit 0. A bad setting,
 * an unservable database or a dependency that never came up stops the start with one clear line and a non-zero
 * exit. One process per DATA_DIR (an OS lock; a second start fails at once naming the holder), and the files
 * under it are the owner's only.
 */
import { Effect, Layer, ManagedRuntime, Option } from "effect";
import { networks } from "@schemas/network.ts";
import { appConfig, describeConfigError } from "@layers/config.ts";
import { makeAppLayer } from "@layers/app_layer.ts";
import { makeDependencyBoard } from "@layers/dependencies.ts";
import { JsonLoggerLive } from "@layers/logger.ts";
import { lockDataDir } from "@layers/data_dir_lock.ts";
import { memoryReportWithWorkers } from "@layers/embedded_memory.ts";
import { startNativeMemoryTrim } from "@layers/native_memory.ts";
import { makePrivateTree, restrictUmask } from "@layers/private_files.ts";
import { buildSchema } from "./graphql/build_schema.ts";
import { type Handler, makeHandler } from "./server/router.ts";
import { closeWebSockets } from "./jsonrpc/ws_transport.ts";
import { startingHandler } from "./server/starting.ts";

/** How long a draining shutdown waits for in-flight requests. */
const drainMs = 10_000;

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
const log = (message: string, annotations: Record<string, unknown> = {}) =>
  Effect.runSync(Effect.logInfo(message).pipe(Effect.annotateLogs(annotations), Effect.provide(logger)));
const address = (hostname: string, port: number) =>
  `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;

const embedded = networks.filter((n) => settings.networks[n].databaseUrls.length === 0);
const ownsDataDir = embedded.length > 0 || Option.isNone(settings.serviceDatabaseUrl);
if (ownsDataDir) {
  // one process per DATA_DIR: a second one stops here at once, naming the first
  await lockDataDir(settings.dataDir).catch((error) => {
    console.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  });
}
log(
  `starting on ${address(settings.host, settings.port)}` +
    (embedded.length > 0
      ? `; ${
        embedded.join(" and ")
      } served from a GENERATED DEMO CHAIN in embedded databases under ${settings.dataDir}`
      : ""),
  { modulesMs },
);

// 1. the port opens first, answering with the start-up handler
const board = makeDependencyBoard(Date.now() + settings.startupTimeoutSeconds * 1000);
let handler: Handler = startingHandler(board);
/** Requests whose handler has not answered yet (a body still arriving counts): what a drain waits for. */
let inFlight = 0;
let onIdle = () => {};
const server = Deno.serve({
  hostname: settings.host,
  port: settings.port,
  onListen: ({ hostname, port }) =>
    log(`port open on ${address(hostname, port)}: /health answers, other routes 503 until started`),
}, (request, info) => {
  inFlight++;
  let answer: ReturnType<Handler>;
  try {
    answer = handler(request, info);
  } catch (error) { // the edge answers every failure; this keeps the count right should one escape it
    if (--inFlight === 0) onIdle();
    throw error;
  }
  // an answer known at once is done already: no promise to wait on
  if (answer instanceof Response) {
    if (--inFlight === 0) onIdle();
    return answer;
  }
  return answer.finally(() => {
    if (--inFlight === 0) onIdle();
  });
});

// 2. the layers wait for what they need, then the real handler takes over
const runtime = ManagedRuntime.make(
  Layer.provideMerge(
    makeAppLayer(settings, board, buildSchema),
    Layer.merge(logger, Layer.setTracerEnabled(false)),
  ),
);
try {
  await runtime.runPromise(Effect.void);
} catch (error) {
  const missing = Object.entries(board.snapshot()).filter(([, s]) => s.state !== "ok");
  const reason = Date.now() >= board.deadline && missing.length > 0
    ? `gave up after ${settings.startupTimeoutSeconds} s (STARTUP_TIMEOUT) waiting for ${
      missing.map(([name, s]) => `${name}${s.lastError ? ` (${s.lastError})` : ""}`).join("; ")
    }`
    : error instanceof Error
    ? error.message
    : String(error);
  console.error(`Cannot start: ${reason}`);
  await runtime.dispose().catch(() => {});
  Deno.exit(1);
}
if (ownsDataDir) {
  // PGlite creates files 0666 (the devnet's catch-up just did): owner-only again now and every minute; the
  // directories are 0700 meanwhile, so nobody else reaches them
  const protect = () =>
    makePrivateTree(settings.dataDir).catch((e) => log(`cannot protect ${settings.dataDir}: ${e}`));
  await protect();
  Deno.unrefTimer(setInterval(protect, 60_000));
}
handler = makeHandler(runtime);
board.markStarted();
log(`listening on ${address(server.addr.hostname, server.addr.port)}`, {
  startupMs: Math.round(performance.now()),
  ...await memoryReportWithWorkers(),
});

startNativeMemoryTrim();

if (settings.memoryLogSeconds > 0) {
  // where memory goes over time (`npm run soak` reads these): RSS next to the V8 heaps (the main thread's and
  // each chain database worker's) and the wasm memories
  Deno.unrefTimer(
    setInterval(
      () => void memoryReportWithWorkers().then((figures) => log("memory", figures)),
      settings.memoryLogSeconds * 1000,
    ),
  );
}

// 3. a signal drains. Deno's server.shutdown() cuts request bodies still arriving, so first the requests in
// flight finish while new ones get 503 "shutting down" (connection: close); then the port closes.
let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  const signalled = Date.now();
  log("shutting down: draining in-flight requests", { inFlight });
  board.markStopping();
  handler = startingHandler(board);
  const idle = await Promise.race([
    inFlight === 0 ? Promise.resolve(true) : new Promise<true>((resolve) => onIdle = () => resolve(true)),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), drainMs)),
  ]);
  if (!idle) log(`${inFlight} requests still running after ${drainMs / 1000} s; stopping anyway`);
  await Promise.race([
    Promise.all([server.shutdown(), closeWebSockets(1001, "server shutting down")]),
    new Promise((resolve) => setTimeout(resolve, 2_000)),
  ]);
  await runtime.dispose(); // flushes usage, closes databases
  log("stopped", { drainMs: Date.now() - signalled });
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
