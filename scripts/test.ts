/**
 * The test runner behind `npm test` (the quick suite) and `npm run test:slow` (the scenario suites): Deno's test
 * runner over the chosen files, in parallel, with every temporary file of the run under one directory that is
 * removed when the run ends, however it ends (a crashed test leaves nothing behind), and the seeded demo-chain
 * template built once for all files (test/support/environment.ts reads CDS_TEST_TEMPLATE). The tests get the
 * caller's environment without the service's own variables (test/support/clean_env.ts): a PORT set in the shell
 * changes nothing, while TEST_DATABASE_URL and REDIS_URL still choose the backends.
 *
 *   deno run -A scripts/test.ts [--suite quick|slow|browser|all] [--jobs N] [path ...]
 *
 * Paths (files or folders under test/) narrow the run; `--jobs` defaults to DENO_JOBS or 3 (most test time is
 * spent waiting on child services and block intervals, so one more job than the two cores pays).
 */
import { parseArgs } from "node:util";
import { join, relative } from "node:path";
import { cleanEnv } from "../test/support/clean_env.ts";
import { type Suite, suiteOf } from "../test/support/suites.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { suite: { type: "string", default: "quick" }, jobs: { type: "string" } },
  allowPositionals: true,
});
const suite = values.suite as Suite | "all";
if (!["quick", "slow", "browser", "all"].includes(suite)) {
  console.error(`--suite must be quick, slow, browser or all, got ${values.suite}`);
  Deno.exit(2);
}
const jobs = values.jobs ?? Deno.env.get("DENO_JOBS") ?? "3";

const root = new URL("..", import.meta.url).pathname;
const walk = (dir: string): Array<string> =>
  [...Deno.readDirSync(dir)].flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory) return e.name === "support" ? [] : walk(path);
    return e.name.endsWith("_test.ts") ? [path] : [];
  });
const roots = positionals.length > 0 ? positionals.map((p) => join(Deno.cwd(), p)) : [join(root, "test")];
const files = roots
  .flatMap((p) => Deno.statSync(p).isDirectory ? walk(p) : [p])
  .map((p) => relative(root, p))
  .filter((f) => suite === "all" || suiteOf(f) === suite)
  .sort();
if (files.length === 0) {
  console.error(`no ${suite} test files under ${positionals.join(" ") || "test/"}`);
  Deno.exit(2);
}

const runDir = await Deno.makeTempDir({ prefix: "cds-test-run-" });
// others may pass through (not list): the resilience tests run private PostgreSQL servers as the postgres user
// in folders of their own under it
await Deno.chmod(runDir, 0o711);
const cleanup = () => {
  try {
    Deno.removeSync(runDir, { recursive: true });
  } catch { /* already gone */ }
};
let child: Deno.ChildProcess | undefined;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => {
    try {
      child?.kill(signal);
    } catch { /* exited */ }
  });
}

const started = performance.now();
let code = 1;
try {
  const env = { ...cleanEnv(), TMPDIR: runDir, DENO_JOBS: jobs };
  // the seeded template, once for every file of the run (PGlite runs only; PostgreSQL runs seed per database)
  if (!Deno.env.get("TEST_DATABASE_URL")) {
    const template = join(runDir, "template");
    const seed = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "test/support/seed_template.ts", template],
      cwd: root,
      clearEnv: true,
      env,
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!seed.success) throw new Error("seeding the test template failed");
    Object.assign(env, { CDS_TEST_TEMPLATE: template });
  }
  console.log(`${files.length} ${suite} test files, ${jobs} at a time, temporary files under ${runDir}`);
  child = new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", "--unstable-no-legacy-abort", "--parallel", ...files],
    cwd: root,
    clearEnv: true,
    env,
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  code = (await child.status).code;
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
} finally {
  cleanup();
}
console.log(`${suite} suite: ${((performance.now() - started) / 1000).toFixed(0)} s`);
Deno.exit(code);
