/**
 * The Dockerfile and compose.yaml cannot be built or run here (no Docker engine), so they are kept in step with
 * what runs here, the cluster harness (scripts/cluster/): the same HAProxy configuration file, the same command,
 * the same instance environment, every variable one the service reads (layers/config.ts).
 */
import assert from "node:assert/strict";
import { configVariables } from "@layers/config_variables.ts";
import {
  haproxyConfig,
  instanceEnv,
  instanceNames,
  proxyEnv,
  serviceArgs,
  serviceEnv,
} from "../scripts/cluster/topology.ts";

const root = new URL("../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, root));

/** The `KEY: value` lines of one block of compose.yaml, found by the line that opens it and its indent. */
const composeBlock = (compose: string, opener: RegExp): Record<string, string> => {
  const lines = compose.split("\n");
  const start = lines.findIndex((l) => opener.test(l));
  assert.ok(start >= 0, `compose.yaml has ${opener}`);
  const indent = lines[start]!.search(/\S/);
  const out: Record<string, string> = {};
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === "") continue;
    if (line.search(/\S/) <= indent) break;
    const m = line.match(/^\s+([A-Z_0-9]+):\s*(.*)$/);
    if (m) out[m[1]!] = m[2]!.replace(/^"(.*)"$/, "$1");
  }
  return out;
};

/** The `ENV` names of the Dockerfile but Deno's own cache directory (the image's, no setting of the service). */
const dockerEnv = (dockerfile: string): Array<string> =>
  dockerfile.split("\n").filter((l) => l.startsWith("ENV ")).flatMap((l) =>
    [...l.slice(4).matchAll(/([A-Z_0-9]+)=/g)].map((m) => m[1]!)
  ).filter((name) => name !== "DENO_DIR");

const harnessInstanceEnv = instanceEnv(
  {
    mainnet: ["postgres://mr", "postgres://m"],
    preprod: ["postgres://pr", "postgres://p"],
    service: "postgres://s",
  },
  "redis://r",
  3000,
  "/data",
);

Deno.test("the harness's and compose's instances set the same variables, each one the service reads", async () => {
  const compose = await read("compose.yaml");
  const dockerfile = await read("Dockerfile");
  const composeEnv = composeBlock(compose, /^x-instance:/);
  const inImage = [...Object.keys(composeEnv), ...dockerEnv(dockerfile)].sort();
  assert.deepEqual(
    [...new Set(inImage)].sort(),
    Object.keys(harnessInstanceEnv).sort(),
    "compose.yaml's instance environment plus the Dockerfile's ENV = the harness's instanceEnv",
  );
  const known = new Set(configVariables());
  // NO_COLOR and glibc's MALLOC_* settings are read by the runtime, not by layers/config.ts
  const runtime = new Set(["NO_COLOR", ...Object.keys(serviceEnv)]);
  const unknown = Object.keys(harnessInstanceEnv).filter((n) => !known.has(n) && !runtime.has(n));
  assert.deepEqual(unknown, [], "every instance variable is one layers/config.ts reads");
  // the URLs of compose's instances name its own services
  assert.match(composeEnv.REDIS_URL!, /^redis:\/\/redis:6379$/);
  assert.match(composeEnv.SERVICE_DATABASE_URL!, /^postgres:\/\/\S+@postgres:5432\/\w+$/);
  // the chains through the replica and the primary, as the harness's instances read them
  for (const name of ["MAINNET", "PREPROD"]) {
    const urls = composeEnv[`${name}_DATABASE_URL`]!.split(",");
    assert.equal(urls.length, 2, `${name}_DATABASE_URL: the replica's URL and the primary's`);
    assert.match(urls[0]!, /^postgres:\/\/[^\s,]+@postgres-replica:5432\/\w+$/);
    assert.match(urls[1]!, /^postgres:\/\/[^\s,]+@postgres:5432\/\w+$/);
  }
});

Deno.test("one HAProxy configuration, routing by /ready to the instances both define", async () => {
  const compose = await read("compose.yaml");
  const cfg = await read(haproxyConfig);
  assert.ok(
    compose.includes(`./${haproxyConfig}:/usr/local/etc/haproxy/haproxy.cfg:ro`),
    "compose mounts it",
  );
  assert.match(cfg, /option httpchk GET \/ready\n/);
  assert.match(cfg, /http-check expect status 200\n/);
  assert.match(cfg, /^\s+option forwardfor$/m);
  const servers = [...cfg.matchAll(/^\s+server (\S+) "\$\{(\w+)\}"/gm)].map((m) => [m[1], m[2]]);
  assert.deepEqual(servers, instanceNames.map((n) => [n, n.toUpperCase()]));
  for (const name of instanceNames) assert.match(compose, new RegExp(`^  ${name}: \\*instance$`, "m"));
  // the variables the file reads = the ones the harness and compose give HAProxy
  const reads = [...new Set([...cfg.matchAll(/"\$\{(\w+)\}"/g)].map((m) => m[1]!))].sort();
  const harness = Object.keys(proxyEnv("127.0.0.1:8080", ["a:1", "b:2", "c:3"])).sort();
  assert.deepEqual(reads, harness);
  assert.deepEqual(Object.keys(composeBlock(compose, /^ {2}haproxy:/)).sort(), harness);
});

Deno.test("the image runs the harness's command: npm start's, with /health as its health check", async () => {
  const dockerfile = await read("Dockerfile");
  const pkg = JSON.parse(await read("package.json"));
  const envPrefix = Object.entries(serviceEnv).map(([k, v]) => `${k}=${v} `).join("");
  assert.equal(pkg.scripts.start, `${envPrefix}deno ${serviceArgs.join(" ")}`);
  for (const [name, value] of Object.entries(serviceEnv)) {
    assert.match(dockerfile, new RegExp(`^ENV [^\\n]*\\b${name}=${value}\\b`, "m"), `the image sets ${name}`);
  }
  assert.ok(
    dockerfile.includes(
      `CMD [${["node_modules/.bin/deno", ...serviceArgs].map((a) => JSON.stringify(a)).join(", ")}]`,
    ),
    "the Dockerfile's CMD is npm start's command",
  );
  assert.match(dockerfile, /^HEALTHCHECK [^\n]*\\\n\s+CMD [^\n]*\/health/m);
  assert.match(dockerfile, /^USER node$/m, "not root");
  assert.match(dockerfile, /^RUN npm ci/m, "Deno from npm, as the README installs it");
});

Deno.test("haproxy.cfg is valid with the harness's and compose's environments", {
  ignore: !(() => {
    try {
      return Deno.statSync("/usr/sbin/haproxy").isFile;
    } catch {
      return false;
    }
  })(),
}, async () => {
  const compose = await read("compose.yaml");
  const composeProxy = composeBlock(compose, /^ {2}haproxy:/);
  for (
    const env of [
      proxyEnv("127.0.0.1:8080", ["127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"]),
      // compose's host names do not resolve here: the check runs with their loopback stand-ins
      { ...composeProxy, CDS1: "127.0.0.1:3000", CDS2: "127.0.0.1:3000", CDS3: "127.0.0.1:3000" },
    ]
  ) {
    const out = await new Deno.Command("/usr/sbin/haproxy", {
      args: ["-c", "-f", new URL(haproxyConfig, root).pathname],
      clearEnv: true,
      env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
  }
});
