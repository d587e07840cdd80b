/**
 * One service per DATA_DIR, with real processes: a second `npm start` on a DATA_DIR in use fails at once with
 * one line naming the holder (pid and start time) and a non-zero exit code; once the holder is dead (killed,
 * its lock file left behind) the next start takes the directory over.
 */
import assert from "node:assert/strict";
import { join } from "node:path";

interface Child {
  readonly pid: number;
  readonly lines: Array<string>;
  readonly waitFor: (pattern: RegExp, timeoutMs: number) => Promise<string>;
  readonly kill: () => Promise<void>;
}

const spawnService = (dataDir: string): Child => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "src/main.ts"],
    env: { DATA_DIR: dataDir, PORT: "0", DEVNET_BLOCK_SECONDS: "0", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: Array<string> = [];
  const waiters: Array<() => void> = [];
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    let buffer = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      const parts = buffer.split("\n");
      buffer = parts.pop()!;
      lines.push(...parts);
      waiters.forEach((w) => w());
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const status = child.status;
  return {
    pid: child.pid,
    lines,
    waitFor: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no line matching ${pattern} in ${timeoutMs} ms:\n${lines.join("\n")}`)),
          timeoutMs,
        );
        const check = () => {
          const found = lines.find((l) => pattern.test(l));
          if (found) {
            clearTimeout(timer);
            resolve(found);
          }
        };
        waiters.push(check);
        check();
        status.then(() => setTimeout(check, 0));
      }),
    kill: async () => {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
      await status;
      await pumps;
    },
  };
};

Deno.test("a second start on a DATA_DIR in use fails at once naming the holder; a dead holder's lock is taken over", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cds-lock-" });
  const children: Array<Child> = [];
  try {
    const first = spawnService(dataDir);
    children.push(first);
    // the lock is taken before the first log line
    await first.waitFor(/"starting on /, 60_000);

    const started = performance.now();
    const second = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "src/main.ts"],
      env: { DATA_DIR: dataDir, PORT: "0", DEVNET_BLOCK_SECONDS: "0", NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
      // without the lock it would hang (or start): killed after a minute, which the assertions below catch
      signal: AbortSignal.timeout(60_000),
    }).output();
    const seconds = (performance.now() - started) / 1000;
    const stderr = new TextDecoder().decode(second.stderr).trimEnd().split("\n");
    assert.notEqual(second.code, 0);
    assert.equal(stderr.length, 1, stderr.join("\n"));
    assert.match(
      stderr[0]!,
      new RegExp(
        `^Cannot start: DATA_DIR .+ is in use by process ${first.pid} on .+, started \\d{4}-\\d\\d-\\d\\dT`,
      ),
    );
    assert.equal(new TextDecoder().decode(second.stdout), "", "nothing else is logged, no port is opened");
    // at once: the time to load the modules, never the first process's start-up (a generous bound for 2 busy cores)
    assert.ok(seconds < 30, `the second start took ${seconds.toFixed(1)} s to give up`);

    // the holder dies without cleaning up: its lock file stays, naming it, and the next start takes it over
    await first.kill();
    assert.match(await Deno.readTextFile(join(dataDir, ".lock")), new RegExp(`"pid":${first.pid}\\b`));
    const third = spawnService(dataDir);
    children.push(third);
    await third.waitFor(/"starting on /, 60_000);
    assert.match(await Deno.readTextFile(join(dataDir, ".lock")), new RegExp(`"pid":${third.pid}\\b`));
    assert.ok(!third.lines.some((l) => l.includes("Cannot start")), third.lines.join("\n"));
  } finally {
    for (const child of children) await child.kill();
    await Deno.remove(dataDir, { recursive: true });
  }
});
