/**
 * The CLIs on a data directory that is not the service's: refused in one line (exit 2), nothing created,
 * unless `--init` asks for a new installation there. A directory a service holds while it is still starting
 * (its database not there yet) is not refused that way: the CLIs wait for the service, then work, or say to try
 * again, and never suggest --init for it.
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

/** A child whose output lines can be waited for. */
const spawnWatched = (dataDir: string, args: Array<string>, options: { stdin?: "piped" } = {}) => {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env: { DATA_DIR: dataDir, NO_COLOR: "1", SERVICE_DATABASE_URL: "" },
    stdin: options.stdin ?? "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout: Array<string> = [];
  const stderr: Array<string> = [];
  const pump = async (stream: ReadableStream<Uint8Array>, into: Array<string>) => {
    let buffer = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      const parts = buffer.split("\n");
      buffer = parts.pop()!;
      into.push(...parts);
    }
    if (buffer) into.push(buffer);
  };
  const pumps = Promise.all([pump(child.stdout, stdout), pump(child.stderr, stderr)]);
  const done = child.status.then(async (s) => (await pumps, s.code));
  let exited = false;
  done.then(() => exited = true);
  const waitFor = async (pattern: RegExp, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = [...stdout, ...stderr].find((l) => pattern.test(l));
      if (line !== undefined) return line;
      if (exited || Date.now() > deadline) {
        throw new Error(`no line matching ${pattern}:\n${[...stdout, ...stderr].join("\n")}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { child, stdout, stderr, done, waitFor };
};

/** test/support/starting_service.ts: holds DATA_DIR like a starting service; `serve()` lets it finish. */
const startingService = async (dataDir: string) => {
  const holder = spawnWatched(dataDir, ["run", "-A", "test/support/starting_service.ts", dataDir], {
    stdin: "piped",
  });
  await holder.waitFor(/^locked$/, 60_000);
  const writer = holder.child.stdin.getWriter();
  return {
    serve: () => writer.write(new TextEncoder().encode("serve\n")),
    waitFor: holder.waitFor,
    kill: async () => {
      try {
        holder.child.kill("SIGKILL");
      } catch { /* already gone */ }
      await holder.done;
    },
  };
};

const cli = (script: string, dataDir: string, ...args: Array<string>) => {
  const run = spawnWatched(dataDir, ["run", "-A", script, ...args]);
  return { ...run, done: run.done.then((code) => ({ code, stdout: run.stdout, stderr: run.stderr })) };
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

Deno.test("while the service holding DATA_DIR is still starting, keys and accounts wait for its database, then work", async () => {
  const root = await Deno.makeTempDir({ prefix: "cds-cli-" });
  const dataDir = join(root, "data");
  const service = await startingService(dataDir);
  try {
    // no --init: the README's `npm run keys -- create` right after `npm start`
    const keys = cli(
      "scripts/keys.ts",
      dataDir,
      "create",
      "--tier",
      "free",
      "--name",
      "early",
      "--wait",
      "600",
    );
    const accounts = cli("scripts/accounts.ts", dataDir, "list", "--wait", "600");
    const waiting =
      /^(keys|accounts): the service in DATA_DIR .+\/data \(process \d+\) is still starting; waiting/;
    await keys.waitFor(waiting, 60_000);
    await accounts.waitFor(waiting, 60_000);
    assert.deepEqual(await entries(dataDir), [".lock"], "the CLIs created nothing meanwhile");
    await service.serve();
    const [created, listed] = await Promise.all([keys.done, accounts.done]);
    assert.equal(created.code, 0, created.stderr.join("\n"));
    assert.match(created.stdout[created.stdout.length - 1]!, /^cds_[A-Za-z0-9_-]{32}$/);
    assert.equal(listed.code, 0, listed.stderr.join("\n"));
    for (const { stderr } of [created, listed]) {
      assert.equal(stderr.length, 1, stderr.join("\n"));
      assert.match(stderr[0]!, waiting);
      assert.doesNotMatch(stderr[0]!, /--init/);
    }
  } finally {
    await service.kill();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a service that does not finish starting in time: the CLIs say so, suggest no --init, create nothing", async () => {
  const root = await Deno.makeTempDir({ prefix: "cds-cli-" });
  const dataDir = join(root, "data");
  const service = await startingService(dataDir);
  try {
    for (
      const [script, args] of [
        ["scripts/keys.ts", ["list", "--wait", "1"]],
        ["scripts/accounts.ts", ["list", "--wait=1", "--init"]],
        ["scripts/devnet.ts", ["wallets", "--network", "mainnet", "--wait", "1"]],
      ] as const
    ) {
      const out = await cli(script, dataDir, ...args).done;
      assert.equal(out.code, 1, `${script}: ${out.stderr.join("\n")}`);
      assert.deepEqual(out.stdout, []);
      assert.match(
        out.stderr.at(-1)!,
        /: the service in DATA_DIR .+\/data \(process \d+\) is still starting; try again in a few seconds$/,
      );
      assert.doesNotMatch(out.stderr.join("\n"), /--init/);
    }
    assert.deepEqual(await entries(dataDir), [".lock"], "nothing created");
  } finally {
    await service.kill();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a DATA_DIR whose service is gone (its lock file left) is refused with --init at once; a bad --wait too", async () => {
  const root = await Deno.makeTempDir({ prefix: "cds-cli-" });
  const dataDir = join(root, "data");
  try {
    const service = await startingService(dataDir);
    await service.kill();
    const refused = await run("scripts/keys.ts", dataDir, "list");
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /^keys: DATA_DIR .+\/data holds no service database; .*--init[^\n]*$/);
    assert.deepEqual(await entries(dataDir), [".lock"]);
    const bad = await run("scripts/keys.ts", dataDir, "list", "--wait", "soon");
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'keys: --wait: expected seconds from 0 to 3600, got "soon"');
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
