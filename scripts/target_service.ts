/**
 * The service a load script aims at: a running one (SERVICE_URL, APIKEY, SERVICE_PID), or one of its own on a
 * fresh embedded DATA_DIR under a temporary folder, with a new key, removed when it stops. Shared by
 * `scripts/attack.ts` and `scripts/soak.ts`.
 */
import { join } from "node:path";
import { serviceArgs, serviceEnv } from "./cluster/topology.ts";

export interface Target {
  readonly base: string;
  readonly key: string;
  readonly pid: number | undefined;
  readonly stop: () => Promise<void>;
  /** The service's latest `memory` log line (own service with MEMORY_LOG_SECONDS): figures in MB. */
  readonly memory: () => Record<string, number> | undefined;
}

/** A process's resident memory in MB, from /proc (undefined when it cannot be read). */
export const rssMb = async (pid: number | undefined): Promise<number | undefined> => {
  if (pid === undefined) return undefined;
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    return Math.round(Number(status.match(/VmRSS:\s+(\d+)/)?.[1]) / 1024);
  } catch {
    return undefined;
  }
};

const startOwnService = async (
  label: string,
  tier: "free" | "paid",
  extraEnv: Record<string, string>,
): Promise<Target> => {
  const dir = await Deno.makeTempDir({ prefix: `cds-${label}-` });
  const env = {
    ...serviceEnv,
    DATA_DIR: join(dir, "data"),
    PORT: "0",
    DEVNET_BLOCK_SECONDS: "0",
    NO_COLOR: "1",
    ...extraEnv,
  };
  const child = new Deno.Command(Deno.execPath(), {
    args: [...serviceArgs], // npm start's
    env,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let base: string | undefined;
    while (!base) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the service exited before listening");
      buffer += value;
      base = buffer.match(/listening on (http:\/\/\S+?)"/)?.[1];
    }
    // keep draining the logs so the service never blocks on a full pipe; keep the latest memory figures
    let memory: Record<string, number> | undefined;
    (async () => {
      let rest = "";
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        const lines = (rest + r.value).split("\n");
        rest = lines.pop()!;
        for (const line of lines.filter((l) => l.includes('"message":"memory"'))) {
          try {
            const { heapUsedMb, heapTotalMb, externalMb, rssMb, ...others } = JSON.parse(line);
            const wasm = Object.fromEntries(
              Object.entries(others).filter(([k]) => /^(wasmMb|workerHeap)/.test(k)),
            );
            memory = { rssMb, heapUsedMb, heapTotalMb, externalMb, ...wasm } as Record<string, number>;
          } catch { /* not a whole line */ }
        }
      }
    })();
    const created = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "scripts/keys.ts", "create", "--tier", tier, "--name", label],
      env,
      stdout: "piped",
    }).output();
    const key = new TextDecoder().decode(created.stdout).trim().split("\n").at(-1)!;
    return {
      base,
      key,
      pid: child.pid,
      memory: () => memory,
      stop: async () => {
        child.kill("SIGTERM");
        await child.status;
        await Deno.remove(dir, { recursive: true });
      },
    };
  } catch (error) {
    child.kill("SIGKILL");
    await child.status;
    await Deno.remove(dir, { recursive: true });
    throw error;
  }
};

/** SERVICE_URL's service, or a new one of our own (`label` names its folder and key). */
export const targetService = (
  label: string,
  tier: "free" | "paid",
  extraEnv: Record<string, string> = {},
): Promise<Target> =>
  Deno.env.get("SERVICE_URL")
    ? Promise.resolve({
      base: Deno.env.get("SERVICE_URL")!,
      key: Deno.env.get("APIKEY") ?? "",
      pid: Deno.env.get("SERVICE_PID") ? Number(Deno.env.get("SERVICE_PID")) : undefined,
      stop: () => Promise.resolve(),
      memory: () => undefined,
    })
    : startOwnService(label, tier, extraEnv);
