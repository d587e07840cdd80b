/**
 * `npm run devnet:example` finds the service where `npm start` puts it (SERVICE_URL, else HOST and PORT), and
 * when nothing answers there says so in one line, without a stack trace.
 */
import assert from "node:assert/strict";
import { serviceUrl } from "../../scripts/service_url.ts";

const env = (vars: Record<string, string>) => ({ get: (name: string) => vars[name] });

Deno.test("the scripts' service URL: SERVICE_URL, else http://HOST:PORT with the service's defaults", () => {
  assert.equal(serviceUrl(env({})), "http://127.0.0.1:3000");
  assert.equal(serviceUrl(env({ PORT: "3311" })), "http://127.0.0.1:3311");
  assert.equal(serviceUrl(env({ HOST: "localhost", PORT: "8080" })), "http://localhost:8080");
  assert.equal(serviceUrl(env({ HOST: "0.0.0.0", PORT: "8080" })), "http://127.0.0.1:8080");
  assert.equal(serviceUrl(env({ HOST: "::1" })), "http://[::1]:3000");
  assert.equal(serviceUrl(env({ HOST: "::" })), "http://[::1]:3000");
  assert.equal(serviceUrl(env({ SERVICE_URL: "https://api.example/", PORT: "1" })), "https://api.example");
});

/** A port nothing listens on: one the OS just gave out and took back. */
const freePort = () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
};

const example = async (vars: Record<string, string>) => {
  const dataDir = await Deno.makeTempDir({ prefix: "cds-example-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "scripts/devnet_example.ts"],
      env: { DATA_DIR: dataDir, APIKEY: "cds_" + "a".repeat(32), NO_COLOR: "1", SERVICE_URL: "", ...vars },
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(60_000),
    }).output();
    const text = (b: Uint8Array) => new TextDecoder().decode(b).trimEnd();
    return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
};

Deno.test("devnet:example with PORT where nothing listens fails with one line naming that port", async () => {
  const port = freePort();
  const out = await example({ PORT: String(port) });
  assert.equal(out.code, 1);
  assert.equal(out.stdout, "");
  assert.equal(out.stderr.split("\n").length, 1, out.stderr);
  assert.match(
    out.stderr,
    new RegExp(`^devnet:example: no service answers at http://127\\.0\\.0\\.1:${port} \\(`),
  );
  assert.doesNotMatch(out.stderr, /\n\s+at |ECONNREFUSED 127\.0\.0\.1:3000/);
});

Deno.test("devnet:example with SERVICE_URL where nothing listens fails with one line naming it", async () => {
  const port = freePort();
  const out = await example({ SERVICE_URL: `http://127.0.0.1:${port}`, PORT: "1" });
  assert.equal(out.code, 1);
  assert.equal(out.stderr.split("\n").length, 1, out.stderr);
  assert.match(
    out.stderr,
    new RegExp(`^devnet:example: no service answers at http://127\\.0\\.0\\.1:${port} `),
  );
});

Deno.test("devnet:example without APIKEY says so in one line", async () => {
  const out = await example({ APIKEY: "", PORT: String(freePort()) });
  assert.equal(out.code, 1);
  assert.match(
    out.stderr,
    /^devnet:example: set APIKEY \(create one with `npm run keys -- create --tier paid`\)$/,
  );
});
