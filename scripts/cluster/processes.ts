/**
 * What the harness started, so it can stop exactly that: child processes by their pid (SIGTERM, then SIGKILL
 * after a grace period), and other clean-ups (PostgreSQL servers, the temp dir) in reverse order of start.
 */
import { eachLine } from "../lines.ts";
export interface Child {
  readonly name: string;
  readonly pid: number;
  /** Every line it printed (stdout and stderr), also appended to its log file. */
  readonly lines: Array<string>;
  readonly exited: Promise<number>;
}

const cleanups: Array<{ name: string; run: () => Promise<void> }> = [];

export const onStop = (name: string, run: () => Promise<void>) => {
  cleanups.push({ name, run });
};

/** Spawns `command` with exactly `env` (nothing of the caller's shell leaks in), its output into `logFile`. */
export const repoRoot = new URL("../../", import.meta.url).pathname;

export const spawn = (
  name: string,
  command: string,
  args: Array<string>,
  env: Record<string, string>,
  logFile: string,
): Child => {
  const process = new Deno.Command(command, {
    args,
    cwd: repoRoot,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/tmp", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: Array<string> = [];
  const log = Deno.openSync(logFile, { create: true, append: true });
  const encoder = new TextEncoder();
  const pump = (stream: ReadableStream<Uint8Array>) =>
    eachLine(stream, (line) => {
      lines.push(line);
      if (lines.length > 2000) lines.splice(0, 1000);
      log.writeSync(encoder.encode(line + "\n"));
    });
  const pumps = Promise.all([pump(process.stdout), pump(process.stderr)]);
  let done = false;
  const exited = process.status.then(async (s) => {
    done = true; // its pid may be reused from now on: never signal it again
    await pumps;
    log.close();
    return s.code;
  });
  const child = { name, pid: process.pid, lines, exited };
  onStop(name, async () => {
    if (done) return await exited.then(() => {});
    try {
      Deno.kill(child.pid, "SIGTERM");
    } catch { /* already gone */ }
    const timer = setTimeout(() => {
      try {
        if (!done) Deno.kill(child.pid, "SIGKILL");
      } catch { /* gone */ }
    }, 15_000);
    await exited.finally(() => clearTimeout(timer));
  });
  return child;
};

let stopping: Promise<void> | undefined;

/** Runs every clean-up once, newest first; the processes that share a step (the instances) stop together. */
export const stopAll = (): Promise<void> => {
  stopping ??= (async () => {
    const steps = cleanups.splice(0).reverse();
    // the instances and the proxy first, all at once (each drains), then the rest one by one
    const children = steps.filter((s) => s.name.startsWith("cds") || s.name === "haproxy");
    const timed = async (step: { name: string; run: () => Promise<void> }) => {
      const started = performance.now();
      await step.run().catch((error) => console.error(`cluster: stopping ${step.name}: ${error}`));
      console.log(`cluster: stopped ${step.name} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    };
    await Promise.all(children.map(timed));
    for (const step of steps.filter((s) => !children.includes(s))) await timed(step);
  })();
  return stopping;
};
