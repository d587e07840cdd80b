/**
 * The README's "Try it" block, run as written (bash, curl, the keys CLI, Deno's WebSocket) against a fresh
 * service on the demo chain: every command answers JSON without an error, so the ids and commands stay true.
 */
import assert from "node:assert/strict";
import { createTestEnvironment } from "./support/environment.ts";
import { startService } from "./support/service.ts";

const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));

/** The first `sh` block after the "## Try it" heading. */
const tryIt = (): string => {
  const section = readme.slice(readme.indexOf("## Try it"));
  const block = section.match(/```sh\n([\s\S]*?)```/)?.[1];
  if (!block) throw new Error("the README has no Try it block");
  return block;
};

Deno.test("the README's Try it commands work as written", async () => {
  const environment = await createTestEnvironment("readme");
  const service = await startService(environment.env);
  try {
    const block = tryIt();
    assert.match(block, /^BASE=http:\/\/127\.0\.0\.1:3000$/m);
    // the service under test listens elsewhere; curl ends each answer with a newline so answers are lines
    const script = block.replace(/^BASE=.*$/m, `BASE=${service.base}`);
    const out = await new Deno.Command("bash", {
      args: ["-euo", "pipefail", "-c", `curl() { command curl -w '\\n' "$@"; }\n${script}`],
      env: { ...environment.env, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const answers = stdout.trim().split("\n").map((line) => JSON.parse(line));
    const commands = block.split("\n").filter((l) => /^(curl|KEY=\$KEY)/.test(l)).length;
    assert.equal(answers.length, commands, stdout);
    for (const answer of answers) {
      assert.equal(answer.error, undefined, JSON.stringify(answer));
      assert.equal(answer.errors, undefined, JSON.stringify(answer));
    }
    const [txStatus, pool, account, block1000, tx, utxos, graphql, rpcUtxo, rpcTip] = answers;
    assert.equal(txStatus.found, true);
    assert.equal(pool.poolIdBech32, "pool1n3euxsyxhpgx84aagn8986nfxlk3wmu267xuywflwwzd5etafh5");
    assert.equal(account.registered, true);
    assert.equal(block1000.blockNo, 1000);
    assert.ok(tx.outputs.length > 0);
    assert.equal(utxos.data.length, 3);
    assert.equal(graphql.data.block.length, 3);
    assert.ok(rpcUtxo.result.length > 0);
    assert.equal(rpcTip.method, "queryNetwork/tip");
  } finally {
    await service.stop();
    await environment.close();
  }
});
