/**
 * `deno run -A scripts/measure_start.ts [--repo DIR] [--runs-later N]`: how long the embedded default takes to
 * start and how much memory it holds. Starts the service (`src/main.ts` of `--repo`, this checkout by default)
 * on a fresh DATA_DIR (first start: databases created and seeded), then again on the same directory (later
 * starts), and for each prints: time to listen, the start-up phases' `ms` from the log, RSS right after
 * listening and after a few requests, and the memory breakdown the service logs when it listens (V8 heap, each
 * PGlite's wasm memory), and once more without the devnet (`DEVNET_BLOCK_SECONDS=0`) to show what it holds.
 * The directory is removed at the end. Run it on a quiet machine for the README's figures.
 */
import { parseArgs } from "node:util";
import { join, resolve } from "node:path";
import { serviceArgs, serviceEnv } from "./cluster/topology.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { repo: { type: "string", default: "." }, "runs-later": { type: "string", default: "1" } },
});
const repo = resolve(values.repo!);
const laterRuns = Number(values["runs-later"]);

const rssMb = async (pid: number): Promise<number> => {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Math.round(Number(status.match(/VmRSS:\s+(\d+) kB/)![1]) / 1024);
};

/** CPU time (user + system, all threads) the process has used, in ms: steadier than wall time on a busy machine. */
const cpuMs = async (pid: number): Promise<number> => {
  const fields = (await Deno.readTextFile(`/proc/${pid}/stat`)).split(") ")[1]!.split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Math.round(ticks * 10); // USER_HZ is 100 on Linux
};

/** The 1-minute load average, to say how busy the machine was. */
const load = async () => Number((await Deno.readTextFile("/proc/loadavg")).split(" ")[0]);

interface Run {
  readonly listenMs: number;
  readonly cpuMsToListen: number;
  readonly loadAverage: number;
  readonly phases: Record<string, number>;
  /** The highest RSS seen (sampled every 200 ms) until the service listened. */
  readonly rssPeakMb: number;
  readonly rssAfterListenMb: number;
  readonly rssAfterRequestsMb: number;
  readonly logged: Record<string, unknown>;
}

const apiKey = async (dataDir: string): Promise<string> => {
  // a checkout from before the CLIs checked DATA_DIR knows no --init
  const init = await Deno.stat(join(repo, "scripts/cli_data_dir.ts")).then(() => ["--init"], () => []);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/keys.ts", "create", "--tier", "paid", "--name", "measure", ...init],
    cwd: repo,
    env: { DATA_DIR: dataDir },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
  if (out.code !== 0) throw new Error(new TextDecoder().decode(out.stderr));
  return lines[lines.length - 1]!;
};

const requests = async (base: string, key: string) => {
  const paths = [
    "/health",
    "/v2/explorer/mainnet/stats",
    "/v2/explorer/mainnet/blocks?page=1&limit=20",
    "/v2/explorer/preprod/blocks?page=1&limit=20",
    "/api/public/protocol-parameters",
    "/v2/explorer/mainnet/dreps?page=1&pageSize=20",
    "/v2/explorer/mainnet/block/2000",
  ];
  for (let round = 0; round < 3; round++) {
    for (const path of paths) {
      const response = await fetch(base + path, { headers: { apikey: key } });
      await response.arrayBuffer();
    }
    const graphql = await fetch(`${base}/v1/graphql`, {
      method: "POST",
      headers: { apikey: key, "content-type": "application/json" },
      body: JSON.stringify({
        query: "{ block(limit: 20, order_by: {id: desc}) { hash block_no tx_count } }",
      }),
    });
    await graphql.arrayBuffer();
  }
};

const startOnce = async (dataDir: string, extraEnv: Record<string, string> = {}): Promise<Run> => {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [...serviceArgs], // npm start's
    cwd: repo,
    env: { ...serviceEnv, DATA_DIR: dataDir, PORT: "0", NO_COLOR: "1", ...extraEnv },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: Array<string> = [];
  let listening: (line: string) => void;
  const listened = new Promise<string>((resolve) => listening = resolve);
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    let buffer = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      const parts = buffer.split("\n");
      buffer = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        if (line.includes("listening on http")) listening(line);
      }
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const exited = child.status.then((s) => {
    throw new Error(`the service exited (${s.code}) before listening:\n${lines.join("\n")}`);
  });
  let rssPeakMb = 0;
  const sampler = setInterval(() => {
    rssMb(child.pid).then((mb) => rssPeakMb = Math.max(rssPeakMb, mb), () => {});
  }, 200);
  const line = await Promise.race([listened, exited]).finally(() => clearInterval(sampler));
  const listenMs = Math.round(performance.now() - started);
  const rssAfterListenMb = await rssMb(child.pid);
  const cpuMsToListen = await cpuMs(child.pid);
  const loadAverage = await load();
  const logged = JSON.parse(line) as Record<string, unknown>;
  const base = String(logged.message).match(/(http:\/\/\S+)/)![1]!;
  await requests(base, await apiKey(dataDir));
  const rssAfterRequestsMb = await rssMb(child.pid);
  child.kill("SIGTERM");
  await child.status;
  await pumps;
  const phases: Record<string, number> = {};
  for (const l of lines) {
    try {
      const entry = JSON.parse(l) as { message?: string; phase?: string; ms?: number };
      if (entry.phase && typeof entry.ms === "number" && entry.message?.endsWith(": done")) {
        phases[entry.phase] = entry.ms;
      }
    } catch {
      // not a JSON line
    }
  }
  delete logged.time;
  delete logged.level;
  delete logged.message;
  return {
    listenMs,
    cpuMsToListen,
    loadAverage,
    phases,
    rssPeakMb,
    rssAfterListenMb,
    rssAfterRequestsMb,
    logged,
  };
};

const dataDir = await Deno.makeTempDir({ prefix: "cds-measure-" });
try {
  const first = await startOnce(join(dataDir, "data"));
  const later: Array<Run> = [];
  for (let i = 0; i < laterRuns; i++) later.push(await startOnce(join(dataDir, "data")));
  // what the devnet holds: the same later start without it
  const laterWithoutDevnet = await startOnce(join(dataDir, "data"), { DEVNET_BLOCK_SECONDS: "0" });
  console.log(
    JSON.stringify({ repo, cpus: navigator.hardwareConcurrency, first, later, laterWithoutDevnet }, null, 2),
  );
} finally {
  await Deno.remove(dataDir, { recursive: true });
}
