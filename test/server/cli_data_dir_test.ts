/**
 * The CLIs on a data directory that is not the service's: refused in one line (exit 2), nothing created,
 * unless `--init` asks for a new installation there.
 */
import assert from "node:assert/strict";
import { join } from "node:path";

const run = async (script: string, dataDir: string, ...args: Array<string>) => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, ...args],
    env: { DATA_DIR: dataDir, NO_COLOR: "1", SERVICE_DATABASE_URL: "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b).trimEnd();
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
};

const entries = async (dir: string) => (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();

Deno.test("keys and devnet refuse an empty DATA_DIR in one line and create nothing; --init creates it", async () => {
  const root = await Deno.makeTempDir({ prefix: "cds-cli-" });
  try {
    const dataDir = join(root, "data");
    for (
      const [script, args] of [
        ["scripts/keys.ts", ["list"]],
        ["scripts/devnet.ts", ["wallets", "--network", "mainnet"]],
      ] as const
    ) {
      const refused = await run(script, dataDir, ...args);
      assert.equal(refused.code, 2, `${script}: ${refused.stderr}`);
      assert.equal(refused.stdout, "");
      assert.equal(refused.stderr.split("\n").length, 1, refused.stderr);
      assert.match(refused.stderr, /^(keys|devnet): DATA_DIR .+\/data holds no service database; .*--init/);
      assert.deepEqual(await entries(root), [], `${script} created nothing`);
    }

    const created = await run("scripts/keys.ts", dataDir, "list", "--init");
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^\s+id\s+tier/);
    assert.ok((await Deno.stat(join(dataDir, "service", "PG_VERSION"))).isFile);
    // now it is an installation: no flag needed, and the devnet CLI accepts it too
    assert.equal((await run("scripts/keys.ts", dataDir, "list")).code, 0);
    const wallets = await run("scripts/devnet.ts", dataDir, "wallets", "--network", "preprod");
    assert.equal(wallets.code, 0, wallets.stderr);
    assert.equal(JSON.parse(wallets.stdout).length, 4);
    // what the CLI created is its owner's only
    assert.equal((await Deno.stat(join(dataDir, "service"))).mode! & 0o777, 0o700);
    assert.equal((await Deno.stat(join(dataDir, "service", "PG_VERSION"))).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
