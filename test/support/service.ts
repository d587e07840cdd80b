/**
 * Runs the real service (`src/main.ts`) as a child process on a free port and waits until it listens, so tests
 * talk to it over real HTTP exactly as clients do. `spawnService` gives the finer steps (port open while starting,
 * listening, exit) for tests of start-up and shutdown.
 */
import { serviceArgs, serviceEnv } from "../../scripts/cluster/topology.ts";
import { cleanEnv } from "./clean_env.ts";
import { eachLine } from "../../scripts/lines.ts";

export interface RunningService {
  readonly base: string;
  /** Every line the service printed (stdout and stderr), for assertions on logs. */
  readonly lines: Array<string>;
  readonly startupMs: number;
  /** The service's process id (for reading its memory use from /proc). */
  readonly pid: number;
  /** SIGTERM, then SIGKILL when the service has not exited after `graceMs` (a stalled one must not hang tests). */
  readonly stop: (graceMs?: number) => Promise<number>;
}

export interface SpawnedService {
  readonly lines: Array<string>;
  /** The address once the port is open (the start-up handler answers from then on). */
  readonly open: Promise<string>;
  /** The address once the service serves (layers built). */
  readonly listening: Promise<string>;
  /** The exit code. */
  readonly exited: Promise<number>;
  readonly pid: number;
  readonly kill: (signal?: Deno.Signal) => void;
}

/** `npm start`'s arguments to deno (scripts/cluster/topology.ts); a test may run the service with narrower permissions. */
export { serviceArgs };

export const spawnService = (
  env: Record<string, string>,
  args: ReadonlyArray<string> = serviceArgs,
  cwd?: string,
): SpawnedService => {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...args],
    cwd,
    // the caller's shell does not leak into the service: only what the test sets (clean_env.ts)
    clearEnv: true,
    env: { ...cleanEnv(), ...serviceEnv, PORT: "0", NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: Array<string> = [];
  const deferred = () => {
    let resolve!: (url: string) => void;
    let reject!: (e: Error) => void;
    const promise = new Promise<string>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => {}); // a caller may wait for only one of them
    return { promise, resolve, reject };
  };
  const open = deferred();
  const listening = deferred();
  const pump = (stream: ReadableStream<Uint8Array>) =>
    eachLine(stream, (line) => {
      lines.push(line);
      const o = line.match(/port open on (http:\/\/\S+?):? /);
      if (o) open.resolve(o[1]!);
      const m = line.match(/listening on (http:\/\/\S+?)"/);
      if (m) listening.resolve(m[1]!);
    });
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const exited = child.status.then(async (s) => {
    await pumps;
    const error = new Error(`service exited with ${s.code} before listening:\n${lines.join("\n")}`);
    open.reject(error);
    listening.reject(error);
    return s.code;
  });
  return {
    lines,
    open: open.promise,
    listening: listening.promise,
    exited,
    pid: child.pid,
    kill: (signal = "SIGTERM") => {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
    },
  };
};

export const startService = async (
  env: Record<string, string>,
  timeoutMs = 120_000,
  args: ReadonlyArray<string> = serviceArgs,
  cwd?: string,
): Promise<RunningService> => {
  const started = performance.now();
  const service = spawnService(env, args, cwd);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`service did not listen within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const base = await Promise.race([service.listening, timeout]);
    return {
      base,
      lines: service.lines,
      startupMs: Math.round(performance.now() - started),
      pid: service.pid,
      stop: async (graceMs = 30_000) => {
        service.kill("SIGTERM");
        const kill = setTimeout(() => service.kill("SIGKILL"), graceMs);
        return await service.exited.finally(() => clearTimeout(kill));
      },
    };
  } catch (error) {
    service.kill("SIGKILL");
    await service.exited;
    throw error;
  } finally {
    clearTimeout(timer);
  }
};
