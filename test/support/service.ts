/**
 * Runs the real service (`src/main.ts`) as a child process on a free port and waits until it listens, so tests
 * talk to it over real HTTP exactly as clients do.
 */
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

export const startService = async (
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<RunningService> => {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "src/main.ts"],
    env: { PORT: "0", NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: Array<string> = [];
  let resolveListen: (url: string) => void;
  let rejectListen: (e: Error) => void;
  const listening = new Promise<string>((resolve, reject) => {
    resolveListen = resolve;
    rejectListen = reject;
  });
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    let buffer = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        lines.push(line);
        const m = line.match(/listening on (http:\/\/\S+?)"/);
        if (m) resolveListen(m[1]!);
      }
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const exited = child.status.then((s) => {
    rejectListen(new Error(`service exited with ${s.code} before listening:\n${lines.join("\n")}`));
    return s.code;
  });
  const timer = setTimeout(
    () => rejectListen(new Error(`service did not listen within ${timeoutMs} ms`)),
    timeoutMs,
  );
  try {
    const base = await listening;
    return {
      base,
      lines,
      startupMs: Math.round(performance.now() - started),
      pid: child.pid,
      stop: async (graceMs = 30_000) => {
        try {
          child.kill("SIGTERM");
        } catch { /* already gone */ }
        const kill = setTimeout(() => {
          try {
            child.kill("SIGKILL");
          } catch { /* already gone */ }
        }, graceMs);
        const code = await exited.finally(() => clearTimeout(kill));
        await pumps;
        return code;
      },
    };
  } catch (error) {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    await exited;
    await pumps;
    throw error;
  } finally {
    clearTimeout(timer);
  }
};
