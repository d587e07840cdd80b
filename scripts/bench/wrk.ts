/**
 * wrk, as the benches drive it: one URL repeated, or a list of paths requested in turn (a Lua script), with
 * requests/s, p50 and p99 read from its `--latency` report. wrk's timeouts (2 s) are not in its latency figures:
 * they are counted with the non-2xx answers as errors, or a slow case would look clean.
 */

export interface WrkOptions {
  readonly connections: number;
  readonly seconds: number;
  readonly headers?: Record<string, string>;
  /**
   * Paths taken once each, in order: each wrk thread walks its own contiguous part of the list from its start
   * (no random start, so two threads never ask the same key), and counts the requests it made past the end of
   * its part (`repeated`: keys asked a second time in the run).
   */
  readonly fresh?: boolean;
}

export interface WrkResult {
  readonly rps: number;
  /** wrk's latency notation ("830.00us", "4.20ms"); scripts/bench/results.ts `latencyMs` reads it. */
  readonly p50: string;
  readonly p99: string;
  readonly requests: number;
  /** Non-2xx answers and timeouts. */
  readonly errors: number;
  readonly non2xx: number;
  readonly timeouts: number;
  /** Requests past the end of a thread's part of the paths (fresh runs only): keys asked again. */
  readonly repeated: number;
}

/** A wrk script that requests the paths in turn: each thread from its own start, or (fresh) in its own part. */
export const pathsScript = async (paths: ReadonlyArray<string>, threads: number, fresh = false) => {
  const file = await Deno.makeTempFile({ suffix: ".lua" });
  // read from a file of lines: a table constructor of tens of thousands of strings overflows LuaJIT's constants
  const listFile = `${file}.paths`;
  await Deno.writeTextFile(listFile, paths.join("\n") + "\n");
  const list = `local paths = {}\nfor line in io.lines(${
    JSON.stringify(listFile)
  }) do paths[#paths + 1] = line end\n`;
  await Deno.writeTextFile(
    file,
    list + (fresh
      ? `local made = {}\nlocal n = 0\n` +
        `setup = function(thread) n = n + 1; thread:set("id", n); table.insert(made, thread) end\n` +
        `init = function()\n` +
        `  local per = math.floor(#paths / ${threads})\n` +
        `  first = (id - 1) * per; last = first + per; i = first; again = false; repeats = 0\n` +
        `end\n` +
        `request = function()\n` +
        `  if i >= last then i = first; again = true end\n` +
        `  if again then repeats = repeats + 1 end\n` +
        `  i = i + 1\n` +
        `  return wrk.format("GET", paths[i])\n` +
        `end\n` +
        `done = function()\n` +
        `  local r = 0\n` +
        `  for _, t in ipairs(made) do r = r + t:get("repeats") end\n` +
        `  io.write("repeated " .. r .. "\\n")\n` +
        `end\n`
      // threads start evenly apart: each thread's Lua state seeds its random numbers alike, so a random start was
      // the same start, and one thread asked right after the other for what it had just asked
      : `local i = 0\nlocal n = 0\n` +
        `setup = function(thread) n = n + 1; thread:set("id", n) end\n` +
        `init = function() i = math.floor((id - 1) * #paths / ${threads}) end\n` +
        `request = function() i = i % #paths + 1; return wrk.format("GET", paths[i]) end\n`),
  );
  return file;
};

/** Runs wrk against `base + path`, or against `base` followed by each of the paths in turn. */
export const wrk = async (
  base: string,
  path: string | ReadonlyArray<string>,
  options: WrkOptions,
): Promise<WrkResult> => {
  const threads = Math.min(2, options.connections);
  // a script's request replaces the URL's path: a base with a path of its own (/api/v0) goes before each one
  const prefix = new URL(base).pathname.replace(/\/$/, "");
  const script = typeof path === "string"
    ? undefined
    : await pathsScript(path.map((p) => `${prefix}${p}`), threads, options.fresh);
  const headers = Object.entries(options.headers ?? {}).flatMap(([k, v]) => ["-H", `${k}: ${v}`]);
  try {
    const out = await new Deno.Command("wrk", {
      args: [
        `-t${threads}`,
        `-c${options.connections}`,
        `-d${Math.max(1, Math.round(options.seconds))}s`,
        "--latency",
        ...(script ? ["-s", script] : []),
        ...headers,
        typeof path === "string" ? `${base}${path}` : base,
      ],
      stdout: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    const non2xx = Number(text.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0);
    const timeouts = Number(text.match(/timeout (\d+)/)?.[1] ?? 0);
    return {
      rps: Number(text.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? 0),
      p50: text.match(/50%\s+([\d.]+\w+)/)?.[1] ?? "?",
      p99: text.match(/99%\s+([\d.]+\w+)/)?.[1] ?? "?",
      requests: Number(text.match(/(\d+) requests in/)?.[1] ?? 0),
      errors: non2xx + timeouts,
      non2xx,
      timeouts,
      repeated: Number(text.match(/^repeated (\d+)$/m)?.[1] ?? 0),
    };
  } finally {
    if (script) {
      await Deno.remove(script).catch(() => {});
      await Deno.remove(`${script}.paths`).catch(() => {});
    }
  }
};
