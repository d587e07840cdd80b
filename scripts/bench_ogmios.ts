/**
 * JSON-RPC (Ogmios) WebSocket benchmark, measured in one run:
 *   - `queryNetwork/tip` requests/s through the service on 1 and on 32 connections (each keeping BENCH_IN_FLIGHT
 *     requests in flight), next to a raw `Deno.upgradeWebSocket` echo server (its own process) under the same
 *     load: ratio = service / echo;
 *   - chain sync: blocks/s streaming the whole demo chain (findIntersection at the origin, then 100 nextBlock in
 *     flight, as the official client does), and the first BENCH_CHAIN_BLOCKS blocks of the large database.
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/scale_360 npm run bench:ogmios
 * The service serves mainnet from BENCH_DATABASE_URL and preprod from a demo chain seeded into a scratch database
 * for the run. Without BENCH_DATABASE_URL it runs embedded on a fresh DATA_DIR (both networks demo chains in
 * PGlite) and the large database's chain sync is left out. Rate limits are off (RATE_LIMIT_PAID=0): messages
 * count both ways, and a FREE key's 100/s would be the bottleneck otherwise.
 * BENCH_CPU_PROF=DIR writes the service's V8 CPU profile of the run there (written at its clean exit).
 * BENCH_CHAIN_ONLY=1 runs only the chain-sync rows (a profile of chain sync alone).
 */
import { serviceArgsWith, serviceEnv } from "./cluster/topology.ts";
import pg from "pg";
import { reportRows } from "./bench/results.ts";

const echoFlag = "--echo-server";
const profileDir = Deno.env.get("BENCH_CPU_PROF");
const profile = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];

/** The baseline: every text frame sent straight back. */
if (Deno.args[0] === echoFlag) {
  Deno.serve({ hostname: "127.0.0.1", port: Number(Deno.args[1]), onListen: () => {} }, (request) => {
    if (request.headers.get("upgrade") !== "websocket") return new Response("echo");
    const { socket, response } = Deno.upgradeWebSocket(request);
    socket.onmessage = (event) => socket.send(event.data);
    return response;
  });
} else {
  await main();
}

async function main() {
  const databaseUrl = Deno.env.get("BENCH_DATABASE_URL") || undefined;
  const databaseName = databaseUrl ? new URL(databaseUrl).pathname.slice(1) : "none (embedded demo chains)";
  const seconds = Number(Deno.env.get("BENCH_SECONDS") ?? "5");
  const inFlight = Number(Deno.env.get("BENCH_IN_FLIGHT") ?? "8");
  const chainBlocks = Number(Deno.env.get("BENCH_CHAIN_BLOCKS") ?? "20000");
  const servicePort = freePort();
  const echoPort = freePort();

  /** Replies per second over `connections` sockets, each keeping `inFlight` frames outstanding. */
  const load = async (url: string, connections: number, frame: string) => {
    const sockets = await Promise.all(Array.from({ length: connections }, () => open(url)));
    let replies = 0;
    let running = true;
    for (const s of sockets) {
      s.onmessage = () => {
        replies++;
        if (running) s.send(frame);
      };
    }
    const started = performance.now();
    for (const s of sockets) for (let i = 0; i < inFlight; i++) s.send(frame);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    running = false;
    const rate = replies / ((performance.now() - started) / 1000);
    for (const s of sockets) s.close();
    return rate;
  };

  /** Blocks per second following the chain from the origin up to `height` (or the tip). */
  const chainSync = async (url: string, height: number) => {
    const s = await open(url);
    let blocks = 0;
    let bytes = 0;
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      s.onmessage = (event) => {
        const text = String(event.data);
        const reply = JSON.parse(text);
        if (reply.error) return reject(new Error(JSON.stringify(reply.error)));
        if (reply.method === "findIntersection") {
          for (let i = 0; i < 100; i++) s.send('{"jsonrpc":"2.0","method":"nextBlock"}');
          return;
        }
        if (reply.result.direction === "forward") {
          blocks++;
          bytes += text.length;
          if (reply.result.block.height >= Math.min(height, reply.result.tip.height)) return resolve();
        }
        s.send('{"jsonrpc":"2.0","method":"nextBlock"}');
      };
      s.send('{"jsonrpc":"2.0","method":"findIntersection","params":{"points":["origin"]},"id":0}');
    });
    const elapsed = (performance.now() - started) / 1000;
    s.close();
    return { blocks, rate: blocks / elapsed, mbPerSecond: bytes / elapsed / 1e6 };
  };

  const scratch = databaseUrl ? await scratchDatabases(databaseUrl) : undefined;
  const dataDir = await Deno.makeTempDir();
  const env = {
    ...serviceEnv,
    DATA_DIR: dataDir,
    PORT: String(servicePort),
    RATE_LIMIT_PAID: "0",
    REDIS_URL: "",
    LOG_LEVEL: "warning",
    NO_COLOR: "1",
    DEVNET_BLOCK_SECONDS: "0", // embedded: no devnet blocks competing with the measured requests
    ...scratch?.env,
  };
  const deno = (args: Array<string>) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", ...args],
      env,
      stdout: "piped",
      stderr: "piped",
    });
  const created = await deno(["scripts/keys.ts", "create", "--tier", "paid", "--name", "bench", "--init"])
    .output();
  const key = new TextDecoder().decode(created.stdout).trim().split("\n").pop()!;
  const service = new Deno.Command(Deno.execPath(), {
    args: serviceArgsWith(profile),
    env,
    stdout: "null",
    stderr: "null",
  }).spawn();
  const echo = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/bench_ogmios.ts", echoFlag, String(echoPort)],
    stdout: "null",
  }).spawn();
  try {
    // /ready, not /health: the service answers /health (and 503 to everything else) while it is still starting
    await waitFor(`http://127.0.0.1:${servicePort}/ready`);
    await waitFor(`http://127.0.0.1:${echoPort}/`);
    const mainnet = `ws://127.0.0.1:${servicePort}/v1/ogmios?apikey=${key}`;
    const preprod = `ws://127.0.0.1:${servicePort}/v1/preprod/ogmios?apikey=${key}`;
    const echoUrl = `ws://127.0.0.1:${echoPort}/`;
    const tip = Deno.env.get("BENCH_FRAME") ??
      '{"jsonrpc":"2.0","method":"queryNetwork/tip","id":{"requestId":"bench"}}';
    console.log(
      `database ${databaseName}; ${inFlight} requests in flight per connection; ` +
        `${seconds} s each\n`,
    );
    console.log("| workload | service | raw echo | ratio |");
    console.log("|---|---|---|---|");
    for (const connections of Deno.env.get("BENCH_CHAIN_ONLY") ? [] : [1, 32]) {
      await load(mainnet, connections, tip); // warm-up
      const served = await load(mainnet, connections, tip);
      const echoed = await load(echoUrl, connections, tip);
      console.log(
        `| queryNetwork/tip, ${connections} connection${connections > 1 ? "s" : ""} (req/s) | ` +
          `${Math.round(served)} | ${Math.round(echoed)} | ${(served / echoed).toFixed(2)} |`,
      );
      await reportRows("ogmios", [{
        workload: `queryNetwork/tip, ${connections} connection${
          connections > 1 ? "s" : ""
        }, ${inFlight} in flight each`,
        ours: served,
        unit: "req/s",
        reference: echoed,
        referenceName: "raw WebSocket echo",
      }]);
    }
    const demo = await chainSync(preprod, Number.MAX_SAFE_INTEGER);
    // blocks/s has no echo counterpart: a frame echoed is not a block read and written
    console.log(
      `| chain sync, whole demo chain: ${demo.blocks} blocks (blocks/s; ${
        demo.mbPerSecond.toFixed(1)
      } MB/s) | ${Math.round(demo.rate)} | | |`,
    );
    await reportRows("ogmios", [
      { workload: `chain sync, whole demo chain (${demo.blocks} blocks)`, ours: demo.rate, unit: "blocks/s" },
    ]);
    if (!databaseUrl) return;
    const large = await chainSync(mainnet, chainBlocks - 1);
    console.log(
      `| chain sync, first ${large.blocks} blocks of ${databaseName} (blocks/s; ` +
        `${large.mbPerSecond.toFixed(1)} MB/s) | ${Math.round(large.rate)} | | |`,
    );
    await reportRows("ogmios", [{
      workload: `chain sync, first ${large.blocks} blocks of the database ${databaseName}`,
      ours: large.rate,
      unit: "blocks/s",
    }]);
  } finally {
    service.kill("SIGTERM");
    echo.kill("SIGTERM");
    await Promise.all([service.status, echo.status]);
    await scratch?.drop();
    await Deno.remove(dataDir, { recursive: true });
  }
}

/** The service's own database and a seeded preprod demo chain on the server of `databaseUrl`, which serves
 * mainnet; dropped after the run. */
async function scratchDatabases(databaseUrl: string) {
  const admin = new pg.Client({ connectionString: new URL("/postgres", databaseUrl).toString() });
  await admin.connect();
  const stamp = Date.now();
  const serviceDb = `bench_ogmios_service_${stamp}`;
  const demoDb = `bench_ogmios_demo_${stamp}`;
  await admin.query(`create database ${serviceDb}`);
  await admin.query(`create database ${demoDb}`);
  const urlOf = (name: string) => new URL(`/${name}`, databaseUrl).toString();
  const seeded = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/seed.ts", "--network", "preprod", "--database-url", urlOf(demoDb)],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!seeded.success) throw new Error(new TextDecoder().decode(seeded.stderr));
  return {
    env: {
      MAINNET_DATABASE_URL: databaseUrl,
      PREPROD_DATABASE_URL: urlOf(demoDb),
      SERVICE_DATABASE_URL: urlOf(serviceDb),
    },
    drop: async () => {
      await admin.query(`drop database if exists ${serviceDb} with (force)`);
      await admin.query(`drop database if exists ${demoDb} with (force)`);
      await admin.end();
    },
  };
}

/** A port nothing listens on now (other services may run on this machine). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const s = new WebSocket(url);
    s.onopen = () => resolve(s);
    s.onerror = () => reject(new Error(`cannot open ${url}`));
  });
}

/** Until `url` answers 200 (any answer for the echo server, whose every answer is 200). */
async function waitFor(url: string) {
  for (let i = 0; i < 600; i++) {
    try {
      const r = await fetch(url);
      await r.body?.cancel();
      if (r.ok) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up`);
}
